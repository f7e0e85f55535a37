package chat_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/docwatch"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/tokens"
	"github.com/ragchat/ragchat/internal/viewer"
)

// seedCitations writes n completed attempts into a new conversation of v,
// each with one source citing doc's first chunk, with bulk inserts.
func seedCitations(t *testing.T, e *env, v *viewer.Viewer, doc *ent.Document, n int) *ent.Conversation {
	t.Helper()
	ctx := as(v)
	conv := e.conversation(t, v)
	ck := e.db.Client.Chunk.Query().Where().FirstX(as(admin))
	for _, c := range e.db.Client.Chunk.Query().AllX(as(admin)) {
		if c.DocumentID == doc.ID {
			ck = c
			break
		}
	}
	now := time.Now()
	users := make([]*ent.MessageCreate, n)
	for i := range users {
		users[i] = e.db.Client.Message.Create().SetConversationID(conv.ID).SetOwnerID(v.UserID).
			SetSequenceNo(int64(i + 1)).SetRole(message.RoleUSER).SetContent(fmt.Sprintf("question %d", i))
	}
	um := e.db.Client.Message.CreateBulk(users...).SaveX(ctx)
	atts := make([]*ent.AttemptCreate, n)
	for i, u := range um {
		atts[i] = e.db.Client.Attempt.Create().SetConversationID(conv.ID).SetOwnerID(v.UserID).
			SetUserMessageID(u.ID).SetOriginalQuestion(u.Content).
			SetStatus(attempt.StatusCOMPLETED).SetAnswer("answer [C1]").SetStartedAt(now).SetCompletedAt(now)
	}
	am := e.db.Client.Attempt.CreateBulk(atts...).SaveX(ctx)
	srcs := make([]*ent.SourceCreate, n)
	for i, a := range am {
		srcs[i] = e.db.Client.Source.Create().SetAttemptID(a.ID).SetOwnerID(v.UserID).SetChunkID(ck.ID).
			SetDocumentID(doc.ID).SetLabel("C1").SetRank(1).SetScore(0.5).SetSnippet("snippet").
			SetDocumentTitle(doc.Title).SetDocumentVersion(doc.Version).SetCited(true)
	}
	e.db.Client.Source.CreateBulk(srcs...).ExecX(ctx)
	return conv
}

// viewerFeed is a viewer feed under test: its events by conversation.
type viewerFeed struct {
	ch  <-chan feed.ViewerEvent
	got map[uuid.UUID][]feed.ViewerEvent
}

func subscribeFeed(t *testing.T, ctx context.Context, fs *feed.Service, v *viewer.Viewer) *viewerFeed {
	t.Helper()
	ch, err := fs.SubscribeViewer(viewer.NewContext(ctx, v))
	require.NoError(t, err)
	return &viewerFeed{ch: ch, got: map[uuid.UUID][]feed.ViewerEvent{}}
}

// until collects SOURCES_CHANGED events until done holds, failing after a
// generous deadline.
func (f *viewerFeed) until(t *testing.T, done func() bool) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for !done() {
		select {
		case ev, ok := <-f.ch:
			require.True(t, ok, "the feed ended")
			if ev.Kind == feed.ViewerSourcesChanged {
				f.got[ev.ConversationID] = append(f.got[ev.ConversationID], ev)
			}
		case <-deadline:
			t.Fatalf("timed out; got events for %d conversations", len(f.got))
		}
	}
}

func (f *viewerFeed) has(ids ...uuid.UUID) func() bool {
	return func() bool {
		for _, id := range ids {
			if len(f.got[id]) == 0 {
				return false
			}
		}
		return true
	}
}

// waitIdle polls until pub has broadcast every change reported to it.
func waitIdle(t *testing.T, pub *docwatch.Publisher) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !pub.Idle() {
		require.True(t, time.Now().Before(deadline), "the publisher never flushed")
		time.Sleep(5 * time.Millisecond)
	}
}

// TestSourcesChangedAcrossReplicas: a document cited by 200 answers in 20
// conversations is re-ingested with other text on replica A; the owner's
// feed on replica B gets exactly one SOURCES_CHANGED per conversation,
// listing its 10 attempts, and an open conversation stream on B one event.
// A deleted conversation, a viewer who may not read the changed document
// and another tenant get nothing; a re-ingest of the same text broadcasts
// nothing; 50 re-ingests in a burst broadcast at most
// ceil(elapsed/interval)+1 times, and each conversation hears at most one
// event per broadcast. Subscription goroutines end on cancel.
func TestSourcesChangedAcrossReplicas(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		const interval = 100 * time.Millisecond
		var pub *docwatch.Publisher
		e := newEnvDeps(t, db, nil, func(d *chat.Deps) {
			pub = docwatch.NewPublisher(d.Broker, docwatch.Options{Interval: interval})
		})
		t.Cleanup(pub.Close)
		svc := knowledge.NewService(e.db.Client, offline.New(offline.Options{}), tokens.Default(),
			knowledge.Options{Changes: e.access, Documents: pub})
		ingest := func(title, content string, acl knowledge.ACL) *ent.Document {
			doc, err := svc.Ingest(as(admin), e.kb, knowledge.DocumentInput{Title: title, SourceURI: "test://docevents/" + title, Content: content, ACL: acl})
			require.NoError(t, err)
			return doc
		}
		ops := knowledge.ACL{Visibility: knowledge.VisibilityRestricted, Groups: []string{demo.OpsGroup}}
		policy := ingest("policy", "The travel allowance is 42 zorkmids.", knowledge.ACL{})
		runbook := ingest("runbook", "Restart the uploader with care.", ops)

		var convs []uuid.UUID
		for range 20 {
			convs = append(convs, seedCitations(t, e, alice, policy, 10).ID)
		}
		deleted := seedCitations(t, e, alice, policy, 3)
		_, err := e.eng.DeleteConversation(as(alice), deleted.ID, "")
		require.NoError(t, err)
		bobPolicy := seedCitations(t, e, bob, policy, 1).ID
		bobRunbook := seedCitations(t, e, bob, runbook, 1).ID
		olgaRunbook := seedCitations(t, e, olga, runbook, 2).ID

		other := e.newInstanceDeps(t, chat.Config{}, sharedBroker(e))
		baseline := goroutines()
		ctx, cancel := context.WithCancel(context.Background())
		aliceFeed := subscribeFeed(t, ctx, other.feed, alice)
		bobFeed := subscribeFeed(t, ctx, other.feed, bob)
		olgaFeed := subscribeFeed(t, ctx, other.feed, olga)
		strangerFeed := subscribeFeed(t, ctx, other.feed, stranger)
		convStream, err := other.feed.SubscribeConversation(viewer.NewContext(ctx, alice), convs[0])
		require.NoError(t, err)

		// The same text again: nothing changed, nothing is broadcast.
		before := pub.Broadcasts()
		ingest("policy", "The travel allowance is 42 zorkmids.", knowledge.ACL{})
		assert.Equal(t, before, pub.Broadcasts(), "a re-ingest of the same text broadcasts nothing")

		ingest("policy", "The travel allowance is 43 zorkmids.", knowledge.ACL{})
		aliceFeed.until(t, aliceFeed.has(convs...))
		for _, id := range convs {
			require.Len(t, aliceFeed.got[id], 1, "one event per conversation")
			ev := aliceFeed.got[id][0]
			assert.Equal(t, 10, ev.ChangedAttempts)
			assert.Len(t, ev.ChangedAttemptIDs, 10)
		}
		bobFeed.until(t, bobFeed.has(bobPolicy))
		deadline := time.After(30 * time.Second)
		for got := false; !got; {
			select {
			case ev := <-convStream:
				if ev.Kind == feed.ConversationSourcesChanged {
					got = true
					assert.Equal(t, convs[0], ev.ConversationID)
					assert.Equal(t, 10, ev.ChangedAttempts)
					assert.Len(t, ev.ChangedAttemptIDs, 10)
				}
			case <-deadline:
				t.Fatal("no SOURCES_CHANGED on the conversation stream")
			}
		}

		// The runbook changes, then the policy: bob, who may not read the
		// runbook, hears of the policy only (events of one topic arrive in
		// order, so the policy's event proves the runbook's was handled).
		ingest("runbook", "Restart the uploader twice.", ops)
		waitIdle(t, pub) // the runbook's broadcast is out before the policy's
		ingest("policy", "The travel allowance is 44 zorkmids.", knowledge.ACL{})
		olgaFeed.until(t, olgaFeed.has(olgaRunbook))
		assert.Equal(t, 2, olgaFeed.got[olgaRunbook][0].ChangedAttempts)
		bobFeed.until(t, func() bool { return len(bobFeed.got[bobPolicy]) >= 2 })
		assert.Empty(t, bobFeed.got[bobRunbook], "no event about a document the viewer may not read")
		aliceFeed.until(t, func() bool {
			for _, id := range convs {
				if len(aliceFeed.got[id]) < 2 {
					return false
				}
			}
			return true
		})

		// A burst of 50 re-ingests: the broadcasts stay within the bound.
		before = pub.Broadcasts()
		start := time.Now()
		for i := range 50 {
			ingest("policy", fmt.Sprintf("The travel allowance is %d zorkmids.", 100+i), knowledge.ACL{})
		}
		waitIdle(t, pub)
		elapsed := time.Since(start)
		sent := pub.Broadcasts() - before
		bound := uint64(math.Ceil(float64(elapsed)/float64(interval))) + 1
		assert.LessOrEqual(t, sent, bound, "broadcasts for 50 re-ingests in %s", elapsed)
		assert.GreaterOrEqual(t, sent, uint64(1))
		// Every conversation hears of the burst, at most once per broadcast.
		aliceFeed.until(t, func() bool {
			for _, id := range convs {
				if len(aliceFeed.got[id]) < 3 {
					return false
				}
			}
			return true
		})
		for _, id := range convs {
			assert.LessOrEqual(t, uint64(len(aliceFeed.got[id])), 2+sent, "events of one conversation")
		}
		assert.Empty(t, aliceFeed.got[deleted.ID], "a deleted conversation hears nothing")
		select {
		case ev := <-strangerFeed.ch:
			t.Fatalf("another tenant heard %+v", ev)
		default:
		}

		cancel()
		for _, f := range []*viewerFeed{aliceFeed, bobFeed, olgaFeed, strangerFeed} {
			for range f.ch {
			}
		}
		for range convStream {
		}
		assertGoroutinesBack(t, baseline)
	})
}
