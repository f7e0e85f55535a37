package feed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/broker"
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

var curator = &viewer.Viewer{TenantID: demo.TenantID, UserID: "curator", Roles: []viewer.Role{viewer.RoleAdmin}}

// library is the demo tenant with its knowledge service, and a feed on a
// memory broker the test publishes document changes on.
type library struct {
	db     *store.DB
	svc    *knowledge.Service
	kb     uuid.UUID
	broker *broker.Memory
	feed   *feed.Service
}

func newLibrary(t *testing.T, db *store.DB) *library {
	t.Helper()
	ctx := context.Background()
	svc := knowledge.NewService(db.Client, offline.New(offline.Options{}), tokens.Default(), knowledge.Options{})
	_, err := knowledge.LoadDemo(ctx, db.Client, svc)
	require.NoError(t, err)
	kb, err := db.Client.KnowledgeBase.Query().First(as(alice))
	require.NoError(t, err)
	br := broker.NewMemory(broker.MemoryOptions{})
	t.Cleanup(func() { _ = br.Close() })
	return &library{db: db, svc: svc, kb: kb.ID, broker: br, feed: feed.New(feed.Deps{Client: db.Client, Broker: br})}
}

func (l *library) ingest(t *testing.T, title, content string, acl knowledge.ACL) *ent.Document {
	t.Helper()
	doc, err := l.svc.Ingest(as(curator), l.kb, knowledge.DocumentInput{Title: title, SourceURI: "test://feed/" + title, Content: content, ACL: acl})
	require.NoError(t, err)
	return doc
}

// cite writes a conversation of v (a temporary chat with temporary) with
// n completed attempts, each citing doc's first chunk.
func (l *library) cite(t *testing.T, v *viewer.Viewer, doc *ent.Document, n int, temporary bool) uuid.UUID {
	t.Helper()
	c, ctx, now := l.db.Client, as(v), time.Now()
	cc := c.Conversation.Create().SetUserID(v.UserID).SetKnowledgeBaseID(l.kb).SetTitle("cites " + doc.Title).
		SetExpiresAt(now.Add(24 * time.Hour)).SetAbsoluteExpiresAt(now.Add(30 * 24 * time.Hour))
	if temporary {
		cc.SetTemporaryExpiresAt(now.Add(time.Hour))
	}
	conv := cc.SaveX(ctx)
	ck := c.Chunk.Query().Where(chunk.DocumentID(doc.ID)).FirstX(as(curator))
	for i := range n {
		q := c.Message.Create().SetConversationID(conv.ID).SetOwnerID(v.UserID).SetSequenceNo(int64(i + 1)).
			SetRole(message.RoleUSER).SetContent(fmt.Sprintf("question %d", i)).SaveX(ctx)
		a := c.Attempt.Create().SetConversationID(conv.ID).SetOwnerID(v.UserID).SetUserMessageID(q.ID).
			SetOriginalQuestion(q.Content).SetStatus(attempt.StatusCOMPLETED).SetAnswer("answer [C1]").
			SetStartedAt(now).SetCompletedAt(now).SaveX(ctx)
		c.Source.Create().SetAttemptID(a.ID).SetOwnerID(v.UserID).SetChunkID(ck.ID).SetDocumentID(doc.ID).
			SetLabel("C1").SetRank(1).SetScore(0.5).SetSnippet("snippet").SetDocumentTitle(doc.Title).
			SetDocumentVersion(doc.Version).SetCited(true).ExecX(ctx)
	}
	return conv.ID
}

// changed broadcasts b on the tenant's document-change topic, as
// internal/docwatch does.
func (l *library) changed(t *testing.T, b docwatch.Batch) {
	t.Helper()
	b.Tenant = demo.TenantID
	data, err := json.Marshal(b)
	require.NoError(t, err)
	_, err = l.broker.Publish(context.Background(), broker.Event{Topic: docwatch.Topic(demo.TenantID), Kind: docwatch.Kind, Data: data})
	require.NoError(t, err)
}

// sourcesChanged collects a viewer feed's SOURCES_CHANGED by conversation
// until want has one, then for a short while more.
func sourcesChanged(t *testing.T, ch <-chan feed.ViewerEvent, want uuid.UUID) map[uuid.UUID][]feed.ViewerEvent {
	t.Helper()
	got := map[uuid.UUID][]feed.ViewerEvent{}
	deadline := time.After(20 * time.Second)
	var settle <-chan time.Time
	for {
		select {
		case ev, ok := <-ch:
			require.True(t, ok, "the feed ended")
			if ev.Kind != feed.ViewerSourcesChanged {
				continue
			}
			got[ev.ConversationID] = append(got[ev.ConversationID], ev)
			if ev.ConversationID == want && settle == nil {
				settle = time.After(200 * time.Millisecond)
			}
		case <-settle:
			return got
		case <-deadline:
			t.Fatal("no SOURCES_CHANGED")
		}
	}
}

// TestSourcesChanged: a broadcast of changed documents becomes, on a
// viewer feed, one SOURCES_CHANGED per conversation of the viewer citing
// a changed document the viewer may read, with its attempts and their
// count, and one on an open conversation stream. A document the viewer
// may not read, another user's conversation and a temporary chat are not
// told on the feed; the temporary chat's own stream is.
func TestSourcesChanged(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		l := newLibrary(t, db)
		policy := l.ingest(t, "policy", "The travel allowance is 42 zorkmids.", knowledge.ACL{})
		runbook := l.ingest(t, "runbook", "Restart the uploader with care.",
			knowledge.ACL{Visibility: knowledge.VisibilityRestricted, Groups: []string{demo.OpsGroup}})
		cites := l.cite(t, alice, policy, 3, false)
		runbooks := l.cite(t, alice, runbook, 2, false)
		temporary := l.cite(t, alice, policy, 1, true)
		bobs := l.cite(t, bob, policy, 1, false)

		baseline := goroutines()
		ctx, cancel := context.WithCancel(as(alice))
		viewerEvents, err := l.feed.SubscribeViewer(ctx)
		require.NoError(t, err)
		stream, err := l.feed.SubscribeConversation(ctx, temporary)
		require.NoError(t, err)
		l.changed(t, docwatch.Batch{Docs: []uuid.UUID{policy.ID, runbook.ID}})

		got := sourcesChanged(t, viewerEvents, cites)
		require.Len(t, got[cites], 1, "one event per conversation")
		assert.Equal(t, 3, got[cites][0].ChangedAttempts)
		assert.Len(t, got[cites][0].ChangedAttemptIDs, 3)
		assert.Empty(t, got[runbooks], "no event about a document the viewer may not read")
		assert.Empty(t, got[temporary], "a temporary chat stays off the viewer feed")
		assert.Empty(t, got[bobs], "another user's conversation")
		ev := next(t, stream)
		assert.Equal(t, feed.ConversationSourcesChanged, ev.Kind)
		assert.Equal(t, 1, ev.ChangedAttempts)

		cancel()
		drain(viewerEvents)
		drain(stream)
		assertGoroutinesBack(t, baseline)
	})
}

// TestManyChangedRechecksRecentDocuments: a "many changed" broadcast
// (more documents than one lists) makes a stream re-check every document
// updated since the batch began: the conversations citing a document
// re-ingested since then hear of it, those citing an older one do not.
func TestManyChangedRechecksRecentDocuments(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		l := newLibrary(t, db)
		old := l.ingest(t, "old", "Nothing changes here.", knowledge.ACL{})
		fresh := l.ingest(t, "fresh", "The allowance is 42 zorkmids.", knowledge.ACL{})
		oldConv := l.cite(t, alice, old, 1, false)
		freshConv := l.cite(t, alice, fresh, 4, false)
		since := time.Now()
		l.ingest(t, "fresh", "The allowance is 43 zorkmids.", knowledge.ACL{})

		ctx, cancel := context.WithCancel(as(alice))
		defer cancel()
		viewerEvents, err := l.feed.SubscribeViewer(ctx)
		require.NoError(t, err)
		l.changed(t, docwatch.Batch{Many: true, Since: since})
		got := sourcesChanged(t, viewerEvents, freshConv)
		assert.Equal(t, 4, got[freshConv][0].ChangedAttempts)
		assert.Empty(t, got[oldConv], "a document updated before the batch is not re-checked")
	})
}
