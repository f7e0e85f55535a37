package chat_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
)

// TestConversationHistoryStrategy: a conversation may choose its own
// history strategy at creation or later (null returns to the tenant's); an
// unknown one is BAD_USER_INPUT naming historyStrategy and creates or
// changes nothing; only the owner may change it.
func TestConversationHistoryStrategy(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		c, err := e.eng.CreateConversation(as(alice), chat.CreateConversationInput{HistoryStrategy: ptr("SLIDING_WINDOW")})
		require.NoError(t, err)
		require.NotNil(t, c.HistoryStrategy)
		assert.Equal(t, domain.StrategySlidingWindow, *c.HistoryStrategy)

		plain := e.conversation(t, alice)
		assert.Nil(t, plain.HistoryStrategy, "no strategy follows the tenant's")

		count := e.db.Client.Conversation.Query().CountX(as(alice))
		_, err = e.eng.CreateConversation(as(alice), chat.CreateConversationInput{HistoryStrategy: ptr("full_buffer")})
		require.Equal(t, domain.CodeBadUserInput, code(err))
		assert.Equal(t, "historyStrategy", domain.ErrorDetails(err)["field"])
		assert.Equal(t, count, e.db.Client.Conversation.Query().CountX(as(alice)), "nothing is created")

		_, err = e.eng.SetConversationHistoryStrategy(as(alice), c.ID, ptr("SOMETHING"))
		require.Equal(t, domain.CodeBadUserInput, code(err))
		assert.Equal(t, "historyStrategy", domain.ErrorDetails(err)["field"])
		_, err = e.eng.SetConversationHistoryStrategy(as(bob), c.ID, ptr("HYBRID"))
		assert.Equal(t, domain.CodeNotFound, code(err))
		_, err = e.eng.SetConversationHistoryStrategy(as(admin), c.ID, ptr("HYBRID"))
		assert.Equal(t, domain.CodeNotFound, code(err), "only the owner chooses")

		got, err := e.eng.SetConversationHistoryStrategy(as(alice), c.ID, ptr("SEMANTIC_SUMMARY"), chat.ExpectVersion(c.Version))
		require.NoError(t, err)
		assert.Equal(t, domain.StrategySemanticSummary, *got.HistoryStrategy)
		assert.Equal(t, c.Version+1, got.Version)
		same, err := e.eng.SetConversationHistoryStrategy(as(alice), c.ID, ptr("SEMANTIC_SUMMARY"))
		require.NoError(t, err)
		assert.Equal(t, got.Version, same.Version, "setting the same strategy is a no-op")
		cleared, err := e.eng.SetConversationHistoryStrategy(as(alice), c.ID, nil)
		require.NoError(t, err)
		assert.Nil(t, cleared.HistoryStrategy)
		stored := e.db.Client.Conversation.GetX(as(alice), c.ID)
		assert.Nil(t, stored.HistoryStrategy)
	})
}
