package chat_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
)

// TestSideCallsAreMetered: the model calls around an answer are charged
// like the answer. After a conversation's first ask (whose title the
// model generates) and a follow-up (whose question the model rewrites),
// the ledger holds a TITLE and a REWRITE entry, each a SETTLE naming the
// attempt that caused it, with positive (estimated) tokens; under a token
// quota their tokens are in the counters, which equal the ledger's
// settled total.
func TestSideCallsAreMetered(t *testing.T) {
	titles := func(c *chat.Config, _ *domain.TenantSettings) { c.GenerateTitles = true }
	q := domain.TokenQuota{Kind: domain.QuotaHard, TenantTokens: reservation() * 100}
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		first := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
		chat.WaitIdle(e.eng)
		follow := e.ask(t, alice, conv.ID, "那超过以后返回什么错误码？")
		chat.WaitIdle(e.eng)

		byPurpose := map[usageentry.Purpose][]int{}
		var settled int64
		for i, en := range ledger(t, e.db) {
			if en.Kind == usageentry.KindSETTLE {
				byPurpose[en.Purpose] = append(byPurpose[en.Purpose], i)
				settled += int64(en.PromptTokens + en.CompletionTokens)
			}
		}
		es := ledger(t, e.db)
		require.Len(t, byPurpose[usageentry.PurposeTITLE], 1, "one generated title")
		require.Len(t, byPurpose[usageentry.PurposeREWRITE], 1, "one rewritten follow-up")
		require.Len(t, byPurpose[usageentry.PurposeANSWER], 2)
		title, rewrite := es[byPurpose[usageentry.PurposeTITLE][0]], es[byPurpose[usageentry.PurposeREWRITE][0]]
		assert.Equal(t, first.attempt.ID, *title.AttemptID)
		assert.Equal(t, follow.attempt.ID, *rewrite.AttemptID)
		assert.Positive(t, title.PromptTokens)
		assert.Positive(t, title.CompletionTokens)
		assert.Positive(t, rewrite.PromptTokens)
		assert.Positive(t, rewrite.CompletionTokens)
		assert.Equal(t, alice.UserID, rewrite.UserID)
		tot := totals(t, e.db, alice.UserID, q)
		assert.Equal(t, settled, tot.TenantUsed, "the counters hold every settled call, side calls included")
		assert.Zero(t, tot.TenantReserved)
	}, titles, withQuota(q))
}

// TestSideCallsWithoutQuota: without a quota the completion transaction
// writes a follow-up's REWRITE entry with its ANSWER (both SETTLE, naming
// the attempt); an answer cancelled after its rewrite still leaves the
// REWRITE in the ledger, written when its run ends, and no ANSWER.
func TestSideCallsWithoutQuota(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		e.ask(t, alice, conv.ID, "上传文件最大是多少？")
		chat.WaitIdle(e.eng)
		follow := e.ask(t, alice, conv.ID, "那超过以后返回什么错误码？")
		chat.WaitIdle(e.eng)

		e.model.hold()
		calls := e.model.chatCalls()
		cancelled, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: "那退款呢？"})
		require.NoError(t, err)
		require.Eventually(t, func() bool { return e.model.chatCalls() > calls }, 20*time.Second, 5*time.Millisecond, "the answer reached the model")
		_, err = e.eng.Cancel(as(alice), cancelled.Attempt.ID)
		require.NoError(t, err)
		e.model.release()
		chat.WaitIdle(e.eng)

		got := map[uuid.UUID][]usageentry.Purpose{}
		for _, en := range ledger(t, e.db) {
			require.Equal(t, usageentry.KindSETTLE, en.Kind)
			require.NotNil(t, en.AttemptID)
			got[*en.AttemptID] = append(got[*en.AttemptID], en.Purpose)
		}
		assert.ElementsMatch(t, []usageentry.Purpose{usageentry.PurposeANSWER, usageentry.PurposeREWRITE}, got[follow.attempt.ID])
		assert.Equal(t, []usageentry.Purpose{usageentry.PurposeREWRITE}, got[cancelled.Attempt.ID])
	})
}
