package chat_test

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestAskRateSharedAcrossInstances: three engines (replicas) on one
// database meter a user's asks together: the burst is admitted across
// them, then every instance refuses with RATE_LIMITED and
// retryAfterSeconds; another user is not affected, and resending a stored
// question with its key is never charged nor refused.
func TestAskRateSharedAcrossInstances(t *testing.T) {
	const burst = 3
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		shared := func(d *chat.Deps) { d.AskLimiter = askrate.NewDBLimiter(db, nil) }
		e := newEnvDeps(t, db, nil, shared, func(_ *chat.Config, st *domain.TenantSettings) {
			st.AskBurst, st.AskRatePerMinute = burst, 0.001 // no refill during the test
		})
		engines := []*chat.Engine{e.eng,
			e.newInstanceDeps(t, chat.Config{}, shared).eng,
			e.newInstanceDeps(t, chat.Config{}, shared).eng}
		ask := func(i int, v *viewer.Viewer, key string) (*chat.AskResult, error) {
			eng := engines[i%len(engines)]
			conv, err := eng.CreateConversation(as(v), chat.CreateConversationInput{})
			require.NoError(t, err)
			return eng.Ask(as(v), chat.AskInput{ConversationID: conv.ID, ClientMessageID: key, Question: "上传文件最大是多少？"})
		}
		var first *chat.AskResult
		for i := range burst {
			res, err := ask(i, alice, uuid.NewString())
			require.NoError(t, err, "ask %d of the burst", i+1)
			if first == nil {
				first = res
			}
		}
		for i := range engines {
			_, err := ask(i, alice, uuid.NewString())
			require.Equal(t, domain.CodeRateLimited, code(err), "instance %d", i)
			var de *domain.Error
			require.ErrorAs(t, err, &de)
			secs, ok := de.Details["retryAfterSeconds"].(int)
			require.True(t, ok, "retryAfterSeconds: %v", de.Details)
			assert.Positive(t, secs)
		}
		for i := range burst {
			_, err := ask(i, bob, uuid.NewString())
			require.NoError(t, err, "bob's ask %d", i+1)
		}
		for i, eng := range engines {
			res, err := eng.Ask(as(alice), chat.AskInput{ConversationID: first.UserMessage.ConversationID, ClientMessageID: *first.Attempt.ClientRequestID, Question: first.UserMessage.Content})
			require.NoError(t, err, fmt.Sprintf("replay on instance %d", i))
			assert.True(t, res.Deduplicated)
		}
		for _, eng := range engines {
			chat.WaitIdle(eng)
		}
	})
}
