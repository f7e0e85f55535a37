package server_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// convView is the part of a Conversation these tests read.
type convView struct {
	ID              string
	Title           string
	Status          string
	Version         int
	HistoryStrategy *string
}

const convFields = `id title status version historyStrategy`

// conflictVersion runs a mutation that must be CONFLICT and returns its
// extensions.currentVersion.
func conflictVersion(t *testing.T, c *gqlclient.Client, query string, vars map[string]any) int {
	t.Helper()
	code, e := errorCode(t, c, query, vars)
	if code != "CONFLICT" {
		t.Fatalf("%s: got %s %+v, want CONFLICT", query, code, e)
	}
	v, ok := e.Extensions["currentVersion"].(float64)
	if !ok {
		t.Fatalf("CONFLICT without extensions.currentVersion: %+v", e)
	}
	return int(v)
}

// TestConversationMutationsCheckExpectedVersion: through the API, every
// conversation mutation takes expectedVersion; a stale one is CONFLICT
// with extensions.currentVersion and changes nothing; the current one
// applies and bumps Conversation.version. unarchiveConversation and the
// per-conversation history strategy (create and set, unknown value
// BAD_USER_INPUT naming historyStrategy) go through the same path.
func TestConversationMutationsCheckExpectedVersion(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		var created struct{ CreateConversation convView }
		mustDo(t, alice, `mutation { createConversation(input: {historyStrategy: "PRIORITIZED"}) { `+convFields+` } }`, nil, &created)
		c := created.CreateConversation
		if c.Status != "ACTIVE" || c.Version != 0 || c.HistoryStrategy == nil || *c.HistoryStrategy != "PRIORITIZED" {
			t.Fatalf("created %+v", c)
		}
		code, e := errorCode(t, alice, `mutation { createConversation(input: {historyStrategy: "FULL_BUFFER"}) { id } }`, nil)
		if code != "BAD_USER_INPUT" || e.Extensions["field"] != "historyStrategy" {
			t.Errorf("unknown strategy: %s %+v", code, e)
		}

		steps := []struct {
			name, mutation, args string
			check                func(convView) bool
		}{
			{"renameConversation", "renameConversation", `title: "Renamed"`, func(c convView) bool { return c.Title == "Renamed" }},
			{"archiveConversation", "archiveConversation", ``, func(c convView) bool { return c.Status == "ARCHIVED" }},
			{"unarchiveConversation", "unarchiveConversation", ``, func(c convView) bool { return c.Status == "ACTIVE" }},
			{"setConversationHistoryStrategy", "setConversationHistoryStrategy", `historyStrategy: null`, func(c convView) bool { return c.HistoryStrategy == nil }},
			{"deleteConversation", "deleteConversation", `reason: "test"`, func(c convView) bool { return c.Status == "DELETED" }},
			{"restoreConversation", "restoreConversation", ``, func(c convView) bool { return c.Status == "ACTIVE" }},
		}
		version := 0
		for _, s := range steps {
			args := "id: $id, expectedVersion: $v"
			if s.args != "" {
				args += ", " + s.args
			}
			q := fmt.Sprintf(`mutation($id: ID!, $v: Int) { %s(%s) { %s } }`, s.mutation, args, convFields)
			if got := conflictVersion(t, alice, q, map[string]any{"id": c.ID, "v": version + 3}); got != version {
				t.Errorf("%s: currentVersion %d, want %d", s.name, got, version)
			}
			var out map[string]convView
			mustDo(t, alice, q, map[string]any{"id": c.ID, "v": version}, &out)
			got := out[s.mutation]
			if got.Version != version+1 || !s.check(got) {
				t.Errorf("%s: got %+v, want version %d", s.name, got, version+1)
			}
			version = got.Version
		}
		code, e = errorCode(t, alice, `mutation($id: ID!) { setConversationHistoryStrategy(id: $id, historyStrategy: "LOUDEST") { id } }`, map[string]any{"id": c.ID})
		if code != "BAD_USER_INPUT" || e.Extensions["field"] != "historyStrategy" {
			t.Errorf("unknown strategy: %s %+v", code, e)
		}
		// Without expectedVersion, a mutation applies to whatever version.
		var out struct{ RenameConversation convView }
		mustDo(t, alice, `mutation($id: ID!) { renameConversation(id: $id, title: "Free") { `+convFields+` } }`, map[string]any{"id": c.ID}, &out)
		if out.RenameConversation.Version != version+1 {
			t.Errorf("rename without expectedVersion: %+v", out.RenameConversation)
		}
	})
}

// TestConcurrentRenamesThroughTheAPI: two renames with the same
// expectedVersion sent at once: exactly one wins, the other is CONFLICT
// with the winner's version, and the title is the winner's.
func TestConcurrentRenamesThroughTheAPI(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		conv := createConversation(t, alice)
		const q = `mutation($id: ID!, $t: String!, $v: Int) { renameConversation(id: $id, title: $t, expectedVersion: $v) { title version } }`
		for round := range 5 {
			titles := []string{"Left", "Right"}
			results := make([]*gqlclient.Response, len(titles))
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i, title := range titles {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					r, err := alice.Do(ctxT(t), q, map[string]any{"id": conv, "t": title, "v": round})
					if err != nil {
						t.Error(err)
					}
					results[i] = r
				}()
			}
			close(start)
			wg.Wait()
			winners, winner := 0, ""
			for i, r := range results {
				switch {
				case r == nil:
				case len(r.Errors) == 0:
					winners++
					winner = titles[i]
				case r.Errors[0].Code() == "CONFLICT":
					if v := r.Errors[0].Extensions["currentVersion"]; v != float64(round+1) {
						t.Errorf("round %d: currentVersion %v", round, v)
					}
				default:
					t.Fatalf("round %d: %+v", round, r.Errors)
				}
			}
			if winners != 1 {
				t.Fatalf("round %d: %d renames won, want exactly 1", round, winners)
			}
			var got struct{ Conversation convView }
			mustDo(t, alice, `query($id: ID!) { conversation(id: $id) { `+convFields+` } }`, map[string]any{"id": conv}, &got)
			if got.Conversation.Title != winner || got.Conversation.Version != round+1 {
				t.Fatalf("round %d: %+v, winner %s", round, got.Conversation, winner)
			}
		}
	})
}

// TestExpiredConversationStatusThroughTheAPI: a conversation past its
// sliding expiry or its absolute cap reads as EXPIRED, in conversation,
// in conversations and adminConversations, and in their status filters
// (status, statusIn, statusNEQ, not); asking in it is
// CONVERSATION_EXPIRED and unarchiving it is refused the same way.
func TestExpiredConversationStatusThroughTheAPI(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice, admin := h.Client(t, "alice"), h.Client(t, "root", "admin")
		live := createConversation(t, alice)
		idle := createConversation(t, alice)
		capped := createConversation(t, alice)
		archivedIdle := createConversation(t, alice)
		mustDo(t, alice, `mutation($id: ID!) { archiveConversation(id: $id) { id } }`, map[string]any{"id": archivedIdle}, nil)
		past := time.Now().Add(-time.Minute)
		for _, id := range []string{idle, archivedIdle} {
			h.DB.Client.Conversation.UpdateOneID(uuid.MustParse(id)).SetExpiresAt(past).ExecX(sysCtx())
		}
		// The absolute cap is immutable in Ent; move it in SQL.
		stmt := `UPDATE conversations SET absolute_expires_at = ? WHERE id = ?`
		if h.DB.Dialect == dialect.Postgres {
			stmt = `UPDATE conversations SET absolute_expires_at = $1 WHERE id = $2`
		}
		if _, err := h.DB.SQL.ExecContext(ctxT(t), stmt, past, uuid.MustParse(capped)); err != nil {
			t.Fatal(err)
		}

		for id, want := range map[string]string{live: "ACTIVE", idle: "EXPIRED", capped: "EXPIRED", archivedIdle: "EXPIRED"} {
			var out struct{ Conversation convView }
			mustDo(t, alice, `query($id: ID!) { conversation(id: $id) { status } }`, map[string]any{"id": id}, &out)
			if out.Conversation.Status != want {
				t.Errorf("conversation %s: status %s, want %s", id, out.Conversation.Status, want)
			}
		}
		ids := func(c *gqlclient.Client, field, where string) map[string]string {
			var out map[string]struct {
				Edges []struct{ Node convView }
			}
			mustDo(t, c, fmt.Sprintf(`{ %s(first: 50, where: %s) { edges { node { id status } } } }`, field, where), nil, &out)
			got := map[string]string{}
			for _, e := range out[field].Edges {
				got[e.Node.ID] = e.Node.Status
			}
			return got
		}
		expired := map[string]string{idle: "EXPIRED", capped: "EXPIRED", archivedIdle: "EXPIRED"}
		for _, tc := range []struct {
			client       *gqlclient.Client
			field, where string
			want         map[string]string
		}{
			{alice, "conversations", `{status: EXPIRED}`, expired},
			{alice, "conversations", `{statusIn: [EXPIRED]}`, expired},
			{alice, "conversations", `{status: ACTIVE}`, map[string]string{live: "ACTIVE"}},
			{alice, "conversations", `{statusNEQ: EXPIRED}`, map[string]string{live: "ACTIVE"}},
			{alice, "conversations", `{not: {statusIn: [ACTIVE]}}`, expired},
			{alice, "conversations", `{status: ARCHIVED}`, map[string]string{}},
			{alice, "conversations", `{or: [{status: ARCHIVED}, {status: ACTIVE}]}`, map[string]string{live: "ACTIVE"}},
			{admin, "adminConversations", `{status: EXPIRED}`, expired},
			{admin, "adminConversations", `{status: ACTIVE}`, map[string]string{live: "ACTIVE"}},
		} {
			if got := ids(tc.client, tc.field, tc.where); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("%s(where: %s): %v, want %v", tc.field, tc.where, got, tc.want)
			}
		}

		code, _ := errorCode(t, alice, `mutation($c: ID!) { ask(input: {conversationId: $c, clientMessageId: "k", question: "上传文件最大是多少？"}) { attempt { id } } }`,
			map[string]any{"c": idle})
		if code != "CONVERSATION_EXPIRED" {
			t.Errorf("ask in an expired conversation: %s", code)
		}
		code, _ = errorCode(t, alice, `mutation($c: ID!) { unarchiveConversation(id: $c) { id } }`, map[string]any{"c": archivedIdle})
		if code != "CONVERSATION_EXPIRED" {
			t.Errorf("unarchive an expired conversation: %s", code)
		}
	})
}
