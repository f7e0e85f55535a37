package tree_test

import (
	"strings"
	"testing"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/chat/tree"
)

// TestWalkShape: the bounded walk up (Up) names its ids as an array on
// PostgreSQL, so that the rows are read by primary key whatever plan the
// statement has (docs/ENGINE.md, "Message trees"), and as IN on SQLite;
// a walk kept in a conversation checks it on every step, so the read
// itself needs no conversation predicate.
func TestWalkShape(t *testing.T) {
	start, conv := uuid.New(), uuid.New()
	cases := []struct {
		dialect string
		want    []string
		not     []string
	}{
		{dialect.Postgres, []string{`"messages"."id" = ANY(ARRAY(WITH RECURSIVE tree_walk`, "FROM messages WHERE id = $1 AND conversation_id = $2", "AND m.conversation_id = $4"}, []string{" IN ("}},
		{dialect.SQLite, []string{"`messages`.`id` IN (WITH RECURSIVE tree_walk", "FROM messages WHERE id = ? AND conversation_id = ?", "AND m.conversation_id = ?"}, []string{"ANY("}},
	}
	for _, tc := range cases {
		t.Run(tc.dialect, func(t *testing.T) {
			s := sql.Dialect(tc.dialect).Select(message.FieldID).From(sql.Table(message.Table))
			tree.Up(tree.Walk{Start: start, Limit: 37, Conversation: conv})(s)
			q, args := s.Query()
			for _, w := range tc.want {
				if !strings.Contains(q, w) {
					t.Errorf("%s: %q lacks %q", tc.dialect, q, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(q, n) {
					t.Errorf("%s: %q has %q", tc.dialect, q, n)
				}
			}
			if len(args) != 4 || args[0] != start || args[1] != conv || args[2] != 37 || args[3] != conv {
				t.Errorf("%s: arguments %v", tc.dialect, args)
			}
		})
	}
}
