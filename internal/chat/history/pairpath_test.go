package history

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
)

// pathRows builds a path, root first, from a shape: 'U' a question, 'A'
// the answer of the question before it, 'X' an answer whose attempt
// answers some other question, 'S' a system message. It returns the rows
// newest first, as readPath reads them.
func pathRows(shape string) []*ent.Message {
	var rows []*ent.Message
	var parent *ent.Message
	for i, c := range shape {
		m := &ent.Message{ID: uuid.New(), Depth: i, SequenceNo: int64(i + 1), Content: string(c)}
		if parent != nil {
			id := parent.ID
			m.ParentID = &id
		}
		switch c {
		case 'U':
			m.Role = message.RoleUSER
		case 'S':
			m.Role = message.RoleSYSTEM
		case 'A', 'X':
			m.Role = message.RoleASSISTANT
			att := uuid.New()
			m.AttemptID = &att
			answers := parent.ID
			if c == 'X' {
				answers = uuid.New()
			}
			m.Edges.Attempt = &ent.Attempt{ID: att, UserMessageID: answers, Status: attempt.StatusCOMPLETED}
		}
		rows = append(rows, m)
		parent = m
	}
	for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
		rows[i], rows[j] = rows[j], rows[i]
	}
	return rows
}

// TestPairPath: a question pairs with the answer that follows it on the
// path and answers it; a question followed by another question, by a
// system message or by an answer to another question is left out; rounds
// at or above the summarised depth are folded; at most max rounds.
func TestPairPath(t *testing.T) {
	tests := []struct {
		name   string
		shape  string
		max    int
		folded int
		// want are the user depths of the rounds, newest first, and
		// wantFolded those of them that are folded.
		want       []int
		wantFolded []int
	}{
		{name: "whole rounds", shape: "UAUAUA", max: 10, folded: -1, want: []int{4, 2, 0}},
		{name: "bounded", shape: "UAUAUA", max: 2, folded: -1, want: []int{4, 2}},
		{name: "an unanswered question", shape: "UAUUA", max: 10, folded: -1, want: []int{3, 0}},
		{name: "a pending question at the end", shape: "UAU", max: 10, folded: -1, want: []int{0}},
		{name: "a system message between", shape: "UASUA", max: 10, folded: -1, want: []int{3, 0}},
		{name: "an answer to another question", shape: "UAUX", max: 10, folded: -1, want: []int{0}},
		{name: "folded at the summarised answer", shape: "UAUAUA", max: 10, folded: 3, want: []int{4, 2, 0}, wantFolded: []int{2, 0}},
		{name: "nothing", shape: "", max: 10, folded: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rounds := pairPath(pathRows(tc.shape), tc.max, tc.folded)
			var got, gotFolded []int
			for _, r := range rounds {
				d := int(r.UserSeq - 1) // sequence numbers follow depth in pathRows
				got = append(got, d)
				if r.folded {
					gotFolded = append(gotFolded, d)
				}
				require.Equal(t, "U", r.User)
				require.Equal(t, r.UserSeq+1, r.AssistantSeq, "the answer is the next message on the path")
			}
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.wantFolded, gotFolded)
		})
	}
}
