package chat_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// feedEvent is what a test expects of a viewer event.
type feedEvent struct {
	kind   feed.ViewerEventKind
	conv   uuid.UUID
	status string
}

// nextFeed reads the next event of a feed (the deadline is a hang guard).
func nextFeed(t *testing.T, ch <-chan feed.ViewerEvent) feed.ViewerEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		require.True(t, ok, "the feed ended")
		return ev
	case <-time.After(20 * time.Second):
		t.Fatal("no feed event")
	}
	return feed.ViewerEvent{}
}

// TestViewerFeedAcrossInstances: alice's second device follows her feed on
// instance 2 while everything happens through instance 1: create, rename,
// ask (PENDING, then COMPLETED), archive, delete, restore, and an admin's
// delete and restore of her conversation. The device sees exactly those
// events, in order. Bob's feed and the admin's own feed see none of it:
// the first event each of them gets is that of a conversation they create
// themselves afterwards. Cancelling the subscriptions returns the
// goroutines to baseline.
func TestViewerFeedAcrossInstances(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		other := e.newInstanceDeps(t, chat.Config{}, sharedBroker(e))
		baseline := goroutines()
		ctx, cancel := context.WithCancel(context.Background())
		follow := func(fs *feed.Service, v *viewer.Viewer) <-chan feed.ViewerEvent {
			ch, err := fs.SubscribeViewer(viewer.NewContext(ctx, v))
			require.NoError(t, err)
			return ch
		}
		aliceFeed, bobFeed, adminFeed := follow(other.feed, alice), follow(other.feed, bob), follow(e.feed, admin)

		conv := e.conversation(t, alice)
		_, err := e.eng.RenameConversation(as(alice), conv.ID, "Uploads")
		require.NoError(t, err)
		o := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
		chat.WaitIdle(e.eng)
		_, err = e.eng.ArchiveConversation(as(alice), conv.ID)
		require.NoError(t, err)
		_, err = e.eng.DeleteConversation(as(alice), conv.ID, "")
		require.NoError(t, err)
		_, err = e.eng.RestoreConversation(as(alice), conv.ID)
		require.NoError(t, err)
		_, err = e.eng.DeleteConversation(as(admin), conv.ID, "abuse")
		require.NoError(t, err)
		_, err = e.eng.RestoreConversation(as(admin), conv.ID)
		require.NoError(t, err)
		bobs := e.conversation(t, bob)
		admins := e.conversation(t, admin)
		last := e.conversation(t, alice)

		want := []feedEvent{
			{kind: feed.ViewerConversationCreated, conv: conv.ID},
			{kind: feed.ViewerConversationUpdated, conv: conv.ID},
			{kind: feed.ViewerAttemptUpdated, conv: conv.ID, status: "PENDING"},
			{kind: feed.ViewerAttemptUpdated, conv: conv.ID, status: "COMPLETED"},
			{kind: feed.ViewerConversationArchived, conv: conv.ID},
			{kind: feed.ViewerConversationDeleted, conv: conv.ID},
			{kind: feed.ViewerConversationRestored, conv: conv.ID},
			{kind: feed.ViewerConversationDeleted, conv: conv.ID},
			{kind: feed.ViewerConversationRestored, conv: conv.ID},
			{kind: feed.ViewerConversationCreated, conv: last.ID},
		}
		for i, w := range want {
			ev := nextFeed(t, aliceFeed)
			assert.Equal(t, w, feedEvent{kind: ev.Kind, conv: ev.ConversationID, status: ev.AttemptStatus}, "alice's event %d", i)
			if ev.Kind == feed.ViewerAttemptUpdated {
				require.NotNil(t, ev.AttemptID)
				assert.Equal(t, o.attempt.ID, *ev.AttemptID)
			}
			assert.False(t, ev.At.IsZero())
		}
		ev := nextFeed(t, bobFeed)
		assert.Equal(t, feedEvent{kind: feed.ViewerConversationCreated, conv: bobs.ID}, feedEvent{kind: ev.Kind, conv: ev.ConversationID}, "bob's first event is his own")
		ev = nextFeed(t, adminFeed)
		assert.Equal(t, feedEvent{kind: feed.ViewerConversationCreated, conv: admins.ID}, feedEvent{kind: ev.Kind, conv: ev.ConversationID}, "the admin's first event is their own")

		_, err = e.feed.SubscribeViewer(context.Background())
		assert.Equal(t, "UNAUTHENTICATED", string(code(err)), "the feed requires a viewer")

		cancel()
		for _, ch := range []<-chan feed.ViewerEvent{aliceFeed, bobFeed, adminFeed} {
			for range ch {
			}
		}
		assertGoroutinesBack(t, baseline)
	})
}
