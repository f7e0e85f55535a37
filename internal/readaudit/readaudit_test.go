package readaudit_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/ent/supportgrant"
	"github.com/ragchat/ragchat/internal/readaudit"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestSupportReadsAuditedPerConversation: reads under a grant write one
// conversation.support_read event per conversation per audit scope,
// naming the grant, however many rows they read; outside a scope each
// query is audited at once.
func TestSupportReadsAuditedPerConversation(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		w := grantedWorld(t, e)
		sys := viewer.SystemJobContext(t.Context(), viewer.JobPurge)
		events := func() []*ent.AuditEvent {
			evs, err := e.db.Client.AuditEvent.Query().
				Where(auditevent.Action(readaudit.ActionSupportRead), auditevent.TargetID(w.conv.String())).All(sys)
			require.NoError(t, err)
			return evs
		}
		// Counting reads no content, so it is not audited.
		require.Equal(t, map[string]int{"conversation": 1, "message": 2, "attempt": 1, "source": w.sources, "feedback": 0, "edge": 1}, visible(t, e, w))
		assert.Empty(t, events())
		scoped := readaudit.WithScope(as(sam))
		_, err := e.db.Client.Message.Query().Where(message.ConversationID(w.conv)).All(scoped)
		require.NoError(t, err)
		_, err = e.db.Client.Source.Query().Where(source.AttemptID(w.att.ID)).All(scoped)
		require.NoError(t, err)
		assert.Empty(t, events(), "written before the flush")
		readaudit.Flush(scoped)
		readaudit.Flush(scoped)
		evs := events()
		require.Len(t, evs, 1)
		assert.Equal(t, "sam", evs[0].Actor)
		assert.Equal(t, w.grant.ID.String(), evs[0].Metadata["grant"])
		assert.Equal(t, "alice", evs[0].Metadata["owner"])

		_, err = e.db.Client.Attempt.Query().Where(attempt.ConversationID(w.conv)).All(as(sam))
		require.NoError(t, err)
		assert.Len(t, events(), 2, "an unscoped read is audited at once")

		// The owner's own reads are not support reads.
		_, err = e.db.Client.Message.Query().All(as(alice))
		require.NoError(t, err)
		assert.Len(t, events(), 2)
		n, err := e.db.Client.SupportGrant.Query().Where(supportgrant.AgentID("sam")).Count(as(sam))
		require.NoError(t, err)
		assert.Equal(t, 1, n)
	})
}
