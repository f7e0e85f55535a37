package feed_test

import (
	"context"
	"net/http"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Members of the demo tenant.
var (
	alice = &viewer.Viewer{TenantID: demo.TenantID, UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}}
	bob   = &viewer.Viewer{TenantID: demo.TenantID, UserID: "bob", Roles: []viewer.Role{viewer.RoleMember}}
)

func as(v *viewer.Viewer) context.Context { return viewer.NewContext(context.Background(), v) }

// world is a feed on one backend and a memory broker, with alice's normal
// conversation and her temporary chat.
type world struct {
	feed      *feed.Service
	normal    *ent.Conversation
	temporary *ent.Conversation
}

func newWorld(t *testing.T, db *store.DB) *world {
	t.Helper()
	c := db.Client
	sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	require.NoError(t, c.Tenant.Create().SetID(demo.TenantID).SetName(demo.TenantName).SetSettings(domain.DefaultTenantSettings()).Exec(sys))
	kb := c.KnowledgeBase.Create().SetTenantID(demo.TenantID).SetName("kb").
		SetEmbeddingModel("offline-hash-1024").SetEmbeddingDimensions(1024).SaveX(sys)
	now := time.Now()
	conv := func(title string, temporary bool) *ent.Conversation {
		cc := c.Conversation.Create().SetUserID(alice.UserID).SetKnowledgeBaseID(kb.ID).SetTitle(title).
			SetExpiresAt(now.Add(24 * time.Hour)).SetAbsoluteExpiresAt(now.Add(30 * 24 * time.Hour))
		if temporary {
			cc.SetTemporaryExpiresAt(now.Add(time.Hour))
		}
		return cc.SaveX(as(alice))
	}
	br := broker.NewMemory(broker.MemoryOptions{})
	t.Cleanup(func() { _ = br.Close() })
	return &world{
		feed:   feed.New(feed.Deps{Client: c, Broker: br}),
		normal: conv("normal", false), temporary: conv("temporary", true),
	}
}

// publishAll publishes one event of every kind a service publishes about
// conv: the engine's, organise's and the attachment service's.
func (w *world) publishAll(ctx context.Context, conv *ent.Conversation) {
	w.feed.ConversationChanged(ctx, conv, feed.ConversationUpdated, feed.ViewerConversationCreated)
	w.feed.ConversationsUpdated(ctx, conv)
	w.feed.MessageCreated(ctx, &ent.Message{ID: uuid.New(), ConversationID: conv.ID})
	w.feed.AttemptChanged(ctx, &ent.Attempt{ID: uuid.New(), ConversationID: conv.ID, TenantID: conv.TenantID,
		OwnerID: conv.UserID, Status: attempt.StatusCOMPLETED}, conv.TemporaryExpiresAt != nil)
	w.feed.BranchSelected(ctx, conv, uuid.New())
	w.feed.AttachmentChanged(ctx, &ent.Attachment{ID: uuid.New(), ConversationID: conv.ID, TenantID: conv.TenantID,
		OwnerID: conv.UserID, Status: attachment.StatusREADY})
}

// next reads the next event of ch (the deadline is a hang guard).
func next[E any](t *testing.T, ch <-chan E) E {
	t.Helper()
	select {
	case ev, ok := <-ch:
		require.True(t, ok, "the stream ended")
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
	var none E
	return none
}

// TestTemporaryChatNeverReachesTheViewerFeed: every kind of event any
// service publishes about a temporary chat reaches the chat's own stream
// and never its owner's viewer feed, whose first event is the first about
// a normal conversation. Cancelling returns the goroutines to baseline.
func TestTemporaryChatNeverReachesTheViewerFeed(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		baseline := goroutines()
		ctx, cancel := context.WithCancel(as(alice))
		viewerEvents, err := w.feed.SubscribeViewer(ctx)
		require.NoError(t, err)
		stream, err := w.feed.SubscribeConversation(ctx, w.temporary.ID)
		require.NoError(t, err)

		w.publishAll(ctx, w.temporary)
		for i, want := range []feed.ConversationEventKind{feed.ConversationUpdated, feed.ConversationUpdated,
			feed.ConversationMessageCreated, feed.ConversationAttemptUpdated, feed.ConversationBranchSelected,
			feed.ConversationAttachmentUpdated} {
			ev := next(t, stream)
			assert.Equal(t, want, ev.Kind, "conversation event %d", i)
			assert.Equal(t, w.temporary.ID, ev.ConversationID)
		}
		w.publishAll(ctx, w.normal)
		for i, want := range []feed.ViewerEventKind{feed.ViewerConversationCreated, feed.ViewerConversationUpdated,
			feed.ViewerAttemptUpdated, feed.ViewerBranchSelected, feed.ViewerAttachmentUpdated} {
			ev := next(t, viewerEvents)
			assert.Equal(t, want, ev.Kind, "viewer event %d", i)
			assert.Equal(t, w.normal.ID, ev.ConversationID, "viewer event %d is about the normal conversation", i)
		}
		cancel()
		drain(viewerEvents)
		drain(stream)
		assertGoroutinesBack(t, baseline)
	})
}

// TestFeedsAreTheirViewers: bob's viewer feed hears nothing of alice's
// conversations, and bob cannot follow her conversation's stream
// (NOT_FOUND, as a fresh read); without a viewer there is no feed.
func TestFeedsAreTheirViewers(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, err := w.feed.SubscribeConversation(viewer.NewContext(ctx, bob), w.normal.ID)
		assert.Equal(t, domain.CodeNotFound, domain.ErrorCode(err))
		_, err = w.feed.SubscribeViewer(ctx)
		assert.Equal(t, domain.CodeUnauthenticated, domain.ErrorCode(err))

		bobs, err := w.feed.SubscribeViewer(viewer.NewContext(ctx, bob))
		require.NoError(t, err)
		alices, err := w.feed.SubscribeViewer(viewer.NewContext(ctx, alice))
		require.NoError(t, err)
		w.publishAll(ctx, w.normal)
		for range 5 {
			next(t, alices)
		}
		select {
		case ev := <-bobs:
			t.Fatalf("bob heard of alice's conversation: %+v", ev)
		case <-time.After(100 * time.Millisecond):
		}
	})
}

// TestSlowSubscribersNeverBlockPublishers: streams nobody reads do not
// slow the services that publish (the broker drops them as laggards and
// they resubscribe), they still deliver afterwards, and they end when
// their context does.
func TestSlowSubscribersNeverBlockPublishers(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		baseline := goroutines()
		ctx, cancel := context.WithCancel(as(alice))
		viewerEvents, err := w.feed.SubscribeViewer(ctx)
		require.NoError(t, err)
		stream, err := w.feed.SubscribeConversation(ctx, w.normal.ID)
		require.NoError(t, err)

		done := make(chan struct{})
		go func() {
			defer close(done)
			for range 20000 {
				w.feed.ConversationChanged(ctx, w.normal, feed.ConversationUpdated, feed.ViewerConversationUpdated)
			}
		}()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Fatal("publishing blocked on streams nobody reads")
		}
		// The streams still deliver once read: what they lagged on is lost
		// (notifications only: clients refetch), and they resubscribe, so
		// a marker published now and then reaches both.
		marker := uuid.New()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(20 * time.Second)
		for convSeen, viewerSeen := false, false; !convSeen || !viewerSeen; {
			select {
			case ev := <-stream:
				convSeen = convSeen || ev.Kind == feed.ConversationBranchSelected && *ev.MessageID == marker
			case ev := <-viewerEvents:
				viewerSeen = viewerSeen || ev.Kind == feed.ViewerBranchSelected && *ev.MessageID == marker
			case <-tick.C:
				w.feed.BranchSelected(ctx, w.normal, marker)
			case <-deadline:
				t.Fatalf("no marker after the lag: on the conversation stream %v, on the viewer feed %v", convSeen, viewerSeen)
			}
		}
		cancel()
		drain(viewerEvents)
		drain(stream)
		assertGoroutinesBack(t, baseline)
	})
}

func drain[E any](ch <-chan E) {
	for range ch {
	}
}

func goroutines() int {
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	return runtime.NumGoroutine()
}

// assertGoroutinesBack waits until the goroutine count is back to
// baseline, and shows the goroutines if it is not.
func assertGoroutinesBack(t *testing.T, baseline int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for goroutines() > baseline {
		if time.Now().After(deadline) {
			var b strings.Builder
			_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
			t.Errorf("goroutines: baseline %d, now %d\n%s", baseline, runtime.NumGoroutine(), b.String())
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
