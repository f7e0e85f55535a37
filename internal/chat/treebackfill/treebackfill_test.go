package treebackfill_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/chat/treebackfill"
)

// row is a message of a Plan case: its role, the attempt it came from
// (ASSISTANT; -1 none), and a parent index already stored (-1 none).
type row struct {
	role    message.Role
	attempt int
	kept    int
	depth   int // the stored depth
	edited  int // index of the question it edits; 0 for none (index 0 is never edited here)
}

// TestPlan derives trees from legacy orders: retries become sibling
// answers, a failed attempt's question continues from the question,
// SYSTEM messages hang off the path without becoming the leaf, answers
// whose attempt row is gone still follow their question, and parents
// already stored are kept.
func TestPlan(t *testing.T) {
	type att struct {
		question int
		status   attempt.Status
	}
	u, a, s := message.RoleUSER, message.RoleASSISTANT, message.RoleSYSTEM
	for _, tc := range []struct {
		name    string
		rows    []row
		atts    []att
		parents []int
		depths  []int
		leaf    int
	}{
		{
			name:    "linear",
			rows:    []row{{u, -1, -1, 0, 0}, {a, 0, -1, 0, 0}, {u, -1, -1, 0, 0}, {a, 1, -1, 0, 0}},
			atts:    []att{{0, attempt.StatusCOMPLETED}, {2, attempt.StatusCOMPLETED}},
			parents: []int{-1, 0, 1, 2}, depths: []int{0, 1, 2, 3}, leaf: 3,
		},
		{
			name:    "retries are siblings, the latest leads on",
			rows:    []row{{u, -1, -1, 0, 0}, {a, 0, -1, 0, 0}, {a, 1, -1, 0, 0}, {u, -1, -1, 0, 0}},
			atts:    []att{{0, attempt.StatusCOMPLETED}, {0, attempt.StatusCOMPLETED}},
			parents: []int{-1, 0, 0, 2}, depths: []int{0, 1, 1, 2}, leaf: 3,
		},
		{
			name:    "an unanswered question is followed by the next",
			rows:    []row{{u, -1, -1, 0, 0}, {u, -1, -1, 0, 0}, {a, 1, -1, 0, 0}},
			atts:    []att{{0, attempt.StatusFAILED}, {1, attempt.StatusCOMPLETED}},
			parents: []int{-1, 0, 1}, depths: []int{0, 1, 2}, leaf: 2,
		},
		{
			name:    "an answer of a failed attempt is a sibling, not the way on",
			rows:    []row{{u, -1, -1, 0, 0}, {a, 0, -1, 0, 0}, {a, 1, -1, 0, 0}, {u, -1, -1, 0, 0}},
			atts:    []att{{0, attempt.StatusCOMPLETED}, {0, attempt.StatusFAILED}},
			parents: []int{-1, 0, 0, 1}, depths: []int{0, 1, 1, 2}, leaf: 3,
		},
		{
			name:    "SYSTEM messages stay off the path",
			rows:    []row{{s, -1, -1, 0, 0}, {u, -1, -1, 0, 0}, {a, 0, -1, 0, 0}, {s, -1, -1, 0, 0}, {u, -1, -1, 0, 0}},
			atts:    []att{{1, attempt.StatusCOMPLETED}},
			parents: []int{-1, -1, 1, 2, 2}, depths: []int{0, 0, 1, 2, 2}, leaf: 4,
		},
		{
			name:    "an answer whose attempt is gone follows the question before it",
			rows:    []row{{u, -1, -1, 0, 0}, {a, 7, -1, 0, 0}, {u, -1, -1, 0, 0}},
			atts:    nil,
			parents: []int{-1, 0, 1}, depths: []int{0, 1, 2}, leaf: 2,
		},
		{
			// An ask into a legacy conversation before the backfill
			// wrote its question as a root (depth 0) and its answer
			// below it: the question is attached after the old leaf and
			// the answer moves down with it.
			name:    "a question asked before the backfill is attached",
			rows:    []row{{u, -1, -1, 0, 0}, {a, 0, -1, 0, 0}, {u, -1, -1, 0, 0}, {a, 1, 2, 1, 0}},
			atts:    []att{{0, attempt.StatusCOMPLETED}, {2, attempt.StatusCOMPLETED}},
			parents: []int{-1, 0, 1, 2}, depths: []int{0, 1, 2, 3}, leaf: 3,
		},
		{
			name:    "an edit written as a root before the backfill becomes a sibling",
			rows:    []row{{u, -1, -1, 0, 0}, {a, 0, -1, 0, 0}, {u, -1, -1, 0, 0}, {a, 1, -1, 0, 0}, {u, -1, -1, 0, 2}, {a, 2, 4, 1, 0}},
			atts:    []att{{0, attempt.StatusCOMPLETED}, {2, attempt.StatusCOMPLETED}, {4, attempt.StatusCOMPLETED}},
			parents: []int{-1, 0, 1, 2, 1, 4}, depths: []int{0, 1, 2, 3, 2, 3}, leaf: 5,
		},
		{
			name:    "stored parents are kept, the rest follows them",
			rows:    []row{{u, -1, -1, 0, 0}, {a, 0, 0, 1, 0}, {u, -1, 1, 2, 0}, {a, 1, -1, 0, 0}, {u, -1, -1, 0, 0}},
			atts:    []att{{0, attempt.StatusCOMPLETED}, {2, attempt.StatusCOMPLETED}},
			parents: []int{-1, 0, 1, 2, 3}, depths: []int{0, 1, 2, 3, 4}, leaf: 4,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids := make([]uuid.UUID, len(tc.rows))
			for i := range ids {
				ids[i] = uuid.New()
			}
			attIDs := make([]uuid.UUID, 8)
			for i := range attIDs {
				attIDs[i] = uuid.New()
			}
			var atts []*ent.Attempt
			for i, x := range tc.atts {
				atts = append(atts, &ent.Attempt{ID: attIDs[i], UserMessageID: ids[x.question], Status: x.status})
			}
			var msgs []*ent.Message
			for i, r := range tc.rows {
				m := &ent.Message{ID: ids[i], SequenceNo: int64(i + 1), Role: r.role, Depth: r.depth}
				if r.attempt >= 0 {
					id := attIDs[r.attempt]
					m.AttemptID = &id
				}
				if r.kept >= 0 {
					p := ids[r.kept]
					m.ParentID = &p
				}
				if r.edited > 0 {
					e := ids[r.edited]
					m.EditedFromID = &e
				}
				msgs = append(msgs, m)
			}
			got := treebackfill.Plan(msgs, atts)
			for i := range tc.rows {
				l := got.Links[ids[i]]
				if tc.parents[i] < 0 {
					assert.Nil(t, l.Parent, "message %d is a root", i)
				} else if assert.NotNil(t, l.Parent, "message %d", i) {
					assert.Equal(t, ids[tc.parents[i]], *l.Parent, "parent of message %d", i)
				}
				assert.Equal(t, tc.depths[i], l.Depth, "depth of message %d", i)
			}
			assert.Equal(t, ids[tc.leaf], got.Leaf, "leaf")
		})
	}
}
