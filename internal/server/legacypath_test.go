package server_test

import (
	"testing"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestCurrentPathOfALegacyConversation: a conversation written before
// message trees (no parents, no current leaf) that the background
// backfill has not reached yet reads as its old line on the first
// currentPath, and is a tree from then on.
func TestCurrentPathOfALegacyConversation(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		conv := createConversation(t, alice)
		for _, q := range []string{"上传文件最大是多少？", "那超过以后返回什么错误码？"} {
			waitDone(t, alice, ask(t, alice, conv, q))
		}
		id := uuid.MustParse(conv)
		ctx := sysCtx()
		want, err := h.DB.Client.Message.Query().Where(message.ConversationID(id)).
			Order(message.BySequenceNo()).IDs(ctx)
		if err != nil || len(want) != 4 {
			t.Fatalf("messages: %v %v", want, err)
		}
		// As the code before message trees wrote them.
		reset := `UPDATE messages SET parent_id = NULL, depth = 0 WHERE conversation_id = ?`
		if h.DB.Dialect == dialect.Postgres {
			reset = `UPDATE messages SET parent_id = NULL, depth = 0 WHERE conversation_id = $1`
		}
		if _, err := h.DB.SQL.ExecContext(ctx, reset, id); err != nil {
			t.Fatal(err)
		}
		if err := h.DB.Client.Conversation.Update().Where(conversation.ID(id)).ClearCurrentLeafID().Exec(ctx); err != nil {
			t.Fatal(err)
		}

		var out struct {
			Conversation struct {
				CurrentPath struct {
					TotalCount int
					Edges      []struct{ Node struct{ ID string } }
				}
			}
		}
		mustDo(t, alice, `query($c: ID!) { conversation(id: $c) { currentPath(last: 50) { totalCount edges { node { id } } } } }`,
			map[string]any{"c": conv}, &out)
		p := out.Conversation.CurrentPath
		if p.TotalCount != 4 || len(p.Edges) != 4 {
			t.Fatalf("the old line: %d messages (totalCount %d), want 4", len(p.Edges), p.TotalCount)
		}
		for i, e := range p.Edges {
			if e.Node.ID != want[i].String() {
				t.Errorf("message %d is %s, want %s", i, e.Node.ID, want[i])
			}
		}
		c := h.DB.Client.Conversation.GetX(ctx, id)
		if c.CurrentLeafID == nil || *c.CurrentLeafID != want[3] {
			t.Errorf("the leaf after the read: %v, want %s", c.CurrentLeafID, want[3])
		}
	})
}
