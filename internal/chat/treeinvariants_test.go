package chat_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/viewer"
)

// sysCtx reads every row, whoever owns it and whatever its status.
func sysCtx() context.Context {
	return viewer.SystemJobContext(context.Background(), viewer.JobPurge)
}

// messagesOf returns every message of conversation id in sequence order.
func (e *env) messagesOf(t *testing.T, id uuid.UUID) []*ent.Message {
	t.Helper()
	ms, err := e.db.Client.Message.Query().Where(message.ConversationID(id)).
		Order(ent.Asc(message.FieldSequenceNo)).All(sysCtx())
	require.NoError(t, err)
	return ms
}

// leafOf returns the current leaf of conversation id (uuid.Nil for none).
func (e *env) leafOf(t *testing.T, id uuid.UUID) uuid.UUID {
	t.Helper()
	c, err := e.db.Client.Conversation.Get(sysCtx(), id)
	require.NoError(t, err)
	if c.CurrentLeafID == nil {
		return uuid.Nil
	}
	return *c.CurrentLeafID
}

// answerOf returns the ASSISTANT message an attempt wrote.
func (e *env) answerOf(t *testing.T, attemptID uuid.UUID) *ent.Message {
	t.Helper()
	m, err := e.db.Client.Message.Query().Where(message.AttemptID(attemptID)).Only(sysCtx())
	require.NoError(t, err)
	return m
}

// requireTree checks the invariants of conversation id's message tree
// (docs/ENGINE.md, "Message trees"):
//   - sequence numbers are 1…n, strictly increasing and gap-free, and the
//     conversation's last_sequence_no is n;
//   - every parent is a message of the same conversation created before
//     its child, and depth = parent's depth + 1 (0 for a root);
//   - a USER message follows a USER or ASSISTANT message (or none); an
//     ASSISTANT message follows the USER message its attempt answers;
//   - an edit is a USER sibling of the question it edits;
//   - the current leaf is a message of the conversation (none only while
//     it has no message).
func (e *env) requireTree(t *testing.T, id uuid.UUID) []*ent.Message {
	t.Helper()
	ms := e.messagesOf(t, id)
	conv, err := e.db.Client.Conversation.Get(sysCtx(), id)
	require.NoError(t, err)
	require.EqualValues(t, len(ms), conv.LastSequenceNo, "last_sequence_no counts the messages")
	byID := map[uuid.UUID]*ent.Message{}
	for i, m := range ms {
		require.EqualValues(t, i+1, m.SequenceNo, "sequence numbers are gap-free")
		byID[m.ID] = m
	}
	for _, m := range ms {
		if m.ParentID == nil {
			require.Zero(t, m.Depth, "a root is at depth 0: %s", m.ID)
			require.NotEqual(t, message.RoleASSISTANT, m.Role, "an answer has a question")
		} else {
			p, ok := byID[*m.ParentID]
			require.True(t, ok, "the parent of %s is in the conversation", m.ID)
			require.Less(t, p.SequenceNo, m.SequenceNo, "a parent is older than its child")
			require.Equal(t, p.Depth+1, m.Depth, "depth of %s", m.ID)
			switch m.Role {
			case message.RoleASSISTANT:
				require.Equal(t, message.RoleUSER, p.Role, "an answer follows a question")
				require.NotNil(t, m.AttemptID)
				a, err := e.db.Client.Attempt.Get(sysCtx(), *m.AttemptID)
				require.NoError(t, err)
				require.Equal(t, p.ID, a.UserMessageID, "an answer follows the question its attempt answers")
				require.Equal(t, attempt.StatusCOMPLETED, a.Status)
			default:
				require.Contains(t, []message.Role{message.RoleUSER, message.RoleASSISTANT}, p.Role)
			}
		}
		if m.EditedFromID != nil {
			o, ok := byID[*m.EditedFromID]
			require.True(t, ok, "an edit's original is in the conversation")
			require.Equal(t, message.RoleUSER, o.Role)
			require.Equal(t, message.RoleUSER, m.Role)
			require.Equal(t, o.ParentID, m.ParentID, "an edit is a sibling of its original")
			require.Equal(t, o.Depth, m.Depth)
		}
	}
	if len(ms) == 0 {
		require.Nil(t, conv.CurrentLeafID)
	} else {
		require.NotNil(t, conv.CurrentLeafID, "a conversation with messages has a current leaf")
		_, ok := byID[*conv.CurrentLeafID]
		require.True(t, ok, "the current leaf is a message of the conversation")
	}
	return ms
}

// pathTo returns the ids from the root down to id.
func pathTo(t *testing.T, ms []*ent.Message, id uuid.UUID) []uuid.UUID {
	t.Helper()
	byID := map[uuid.UUID]*ent.Message{}
	for _, m := range ms {
		byID[m.ID] = m
	}
	var rev []uuid.UUID
	for cur := byID[id]; cur != nil; {
		rev = append(rev, cur.ID)
		if cur.ParentID == nil {
			break
		}
		cur = byID[*cur.ParentID]
	}
	out := make([]uuid.UUID, len(rev))
	for i, x := range rev {
		out[len(rev)-1-i] = x
	}
	return out
}
