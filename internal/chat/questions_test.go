package chat_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/llm/llmfake"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// TestQuestionsSavedWithTheOutcome: the rewrite has no write of its own
// (docs/ENGINE.md, "Statements per ask"); both questions are saved with
// the attempt's outcome, a COMPLETED and a FAILED one alike, on the attempt
// and on the user message.
func TestQuestionsSavedWithTheOutcome(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e, fake := fakeEnv(t, db)
		conv := e.conversation(t, alice)
		const q = "上传文件最大是多少？"
		cases := []struct {
			name   string
			fail   bool
			status attempt.Status
		}{
			{"failed", true, attempt.StatusFAILED},
			{"completed", false, attempt.StatusCOMPLETED},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				if tc.fail {
					// One request plus one retry (MaxRetries 1) both fail.
					fake.FailNext(2, llmfake.Failure{Status: 500})
				}
				o := e.ask(t, alice, conv.ID, q)
				require.Equal(t, tc.status, o.attempt.Status)
				saved := e.db.Client.Attempt.GetX(as(alice), o.attempt.ID)
				require.NotNil(t, saved.StandaloneQuestion, "the attempt keeps its standalone question")
				assert.Equal(t, q, *saved.StandaloneQuestion)
				user := e.db.Client.Message.Query().Where(message.ID(saved.UserMessageID)).OnlyX(as(alice))
				require.NotNil(t, user.StandaloneQuestion, "the user message keeps its standalone question")
				assert.Equal(t, q, *user.StandaloneQuestion)
			})
		}
	})
}
