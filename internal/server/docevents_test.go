package server_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
	"github.com/ragchat/ragchat/internal/viewer"
)

const sourcesChangedViewerEvents = `subscription { viewerEvents { kind conversationId changedAttemptIds changedAttemptCount } }`

// sourcesChangedEvent is one viewerEvents payload of the test.
type sourcesChangedEvent struct {
	Kind                string
	ConversationID      string
	ChangedAttemptIds   []string
	ChangedAttemptCount *int
}

// seedCitingAttempts writes n completed attempts of user into conv, each
// citing one chunk of doc.
func seedCitingAttempts(t *testing.T, h *servertest.Harness, user string, conv uuid.UUID, doc *ent.Document, n int) {
	t.Helper()
	ctx := viewer.NewContext(context.Background(), &viewer.Viewer{TenantID: "demo", UserID: user, Roles: []viewer.Role{viewer.RoleMember}})
	sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	ck, err := h.DB.Client.Chunk.Query().Where(chunk.DocumentID(doc.ID)).First(sys)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i := range n {
		u, err := h.DB.Client.Message.Create().SetConversationID(conv).SetOwnerID(user).
			SetSequenceNo(int64(i + 1)).SetRole(message.RoleUSER).SetContent(fmt.Sprintf("question %d", i)).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		a, err := h.DB.Client.Attempt.Create().SetConversationID(conv).SetOwnerID(user).SetUserMessageID(u.ID).
			SetOriginalQuestion(u.Content).SetStatus(attempt.StatusCOMPLETED).SetAnswer("answer [C1]").
			SetStartedAt(now).SetCompletedAt(now).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.DB.Client.Source.Create().SetAttemptID(a.ID).SetOwnerID(user).SetChunkID(ck.ID).
			SetDocumentID(doc.ID).SetLabel("C1").SetRank(1).SetScore(0.5).SetSnippet("snippet").
			SetDocumentTitle(doc.Title).SetDocumentVersion(doc.Version).SetCited(true).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSourcesChangedOverGraphQLAcrossReplicas: two replicas share one
// PostgreSQL database and its LISTEN/NOTIFY broker. Alice follows her
// feed on replica B (viewerEvents, SSE); a document cited by 5 answers in
// each of 4 of her conversations is re-ingested with other text through
// replica A: the feed gets one SOURCES_CHANGED per conversation, with the
// 5 attempt ids and the count, within one broadcast.
func TestSourcesChangedOverGraphQLAcrossReplicas(t *testing.T) {
	// Two replicas share one PostgreSQL database and its broker.
	pg := testdb.PostgresBackend(t)
	a := servertest.Start(t, pg, servertest.Options{PostgresBroker: true})
	b := servertest.Start(t, pg, servertest.Options{PostgresBroker: true, Beside: a})
	admin := viewer.NewContext(context.Background(), &viewer.Viewer{TenantID: "demo", UserID: "root", Roles: []viewer.Role{viewer.RoleAdmin}})
	sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	kb, err := a.DB.Client.KnowledgeBase.Query().Where(knowledgebase.TenantID("demo")).First(sys)
	if err != nil {
		t.Fatal(err)
	}
	in := knowledge.DocumentInput{Title: "Allowance", SourceURI: "test://docevents/allowance", Content: "The allowance is 42 zorkmids."}
	doc, err := a.Knowledge.Ingest(admin, kb.ID, in)
	if err != nil {
		t.Fatal(err)
	}
	aliceA, aliceB := a.Client(t, "alice"), b.Client(t, "alice")
	attempts := map[string]int{}
	for range 4 {
		conv := createConversation(t, aliceA)
		seedCitingAttempts(t, a, "alice", uuid.MustParse(conv), doc, 5)
		attempts[conv] = 5
	}
	feed, err := aliceB.SubscribeSSE(ctxT(t), sourcesChangedViewerEvents, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(feed.Stop)
	// The stream starts asynchronously: rename until the feed reports it.
	probe := createConversation(t, aliceA)
	for i := 0; ; i++ {
		mustDo(t, aliceA, `mutation($c: ID!, $t: String!) { renameConversation(id: $c, title: $t) { id } }`, map[string]any{"c": probe, "t": fmt.Sprint("probe ", i)}, nil)
		ctx, cancel := context.WithTimeout(ctxT(t), 200*time.Millisecond)
		_, err := feed.Next(ctx)
		cancel()
		if err == nil {
			break
		}
		if i > 100 {
			t.Fatal("the feed never started")
		}
	}

	in.Content = "The allowance is 43 zorkmids."
	if _, err := a.Knowledge.Ingest(admin, kb.ID, in); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for len(seen) < len(attempts) {
		ctx, cancel := context.WithTimeout(ctxT(t), 20*time.Second)
		r, err := feed.Next(ctx)
		cancel()
		if err != nil {
			t.Fatalf("got SOURCES_CHANGED for %d of %d conversations: %v", len(seen), len(attempts), err)
		}
		var out map[string]sourcesChangedEvent
		if err := r.Decode(&out); err != nil {
			t.Fatal(err)
		}
		ev := out["viewerEvents"]
		if ev.Kind != "SOURCES_CHANGED" {
			continue
		}
		want, ok := attempts[ev.ConversationID]
		if !ok {
			t.Fatalf("an event for an unrelated conversation: %+v", ev)
		}
		seen[ev.ConversationID]++
		if seen[ev.ConversationID] > 1 {
			t.Fatalf("two events for conversation %s", ev.ConversationID)
		}
		if ev.ChangedAttemptCount == nil || *ev.ChangedAttemptCount != want || len(ev.ChangedAttemptIds) != want {
			t.Fatalf("event %+v: want %d attempts", ev, want)
		}
	}
	if n := a.DocumentChanges.Broadcasts(); n != 1 {
		t.Fatalf("replica A broadcast %d times for one change, want 1", n)
	}
	if n := b.DocumentChanges.Broadcasts(); n != 0 {
		t.Fatalf("replica B broadcast %d times, want 0", n)
	}
}
