package chat_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestPurgeAfterRetention: a DELETED conversation can be restored within
// retention and is hard-deleted, with everything beneath it, after it; the
// purge is audited. A live conversation is never purged.
func TestPurgeAfterRetention(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		keep := e.conversation(t, alice)
		e.ask(t, alice, keep.ID, "上传文件最大是多少？")
		gone := e.conversation(t, alice)
		e.ask(t, alice, gone.ID, "退款多久到账？")
		_, err := e.eng.DeleteConversation(as(alice), gone.ID, "")
		require.NoError(t, err)

		n, err := e.eng.PurgeOnce(context.Background())
		require.NoError(t, err)
		assert.Zero(t, n, "within retention nothing is purged")

		e.clock.advance(31 * 24 * time.Hour)
		_, err = e.eng.RestoreConversation(as(alice), gone.ID)
		assert.Equal(t, domain.CodeNotFound, code(err), "past retention it cannot be restored")
		n, err = e.eng.PurgeOnce(context.Background())
		require.NoError(t, err)
		assert.GreaterOrEqual(t, n, 1)

		sys := viewer.SystemJobContext(context.Background(), viewer.JobPurge)
		assert.False(t, e.db.Client.Conversation.Query().Where(conversation.ID(gone.ID)).ExistX(sys))
		assert.Zero(t, e.db.Client.Message.Query().Where(message.ConversationID(gone.ID)).CountX(sys))
		assert.True(t, e.db.Client.Conversation.Query().Where(conversation.ID(keep.ID)).ExistX(sys))
		assert.Equal(t, 2, e.db.Client.Message.Query().Where(message.ConversationID(keep.ID)).CountX(sys))
		assert.True(t, e.db.Client.AuditEvent.Query().Where(auditevent.Action("conversation.purged"), auditevent.TargetID(gone.ID.String())).ExistX(sys))
	})
}
