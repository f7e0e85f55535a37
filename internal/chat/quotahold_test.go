package chat_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
)

// settledBy sums alice's SETTLE entries by purpose, and all of them.
func settledBy(t *testing.T, e *env) (map[usageentry.Purpose]int, int64) {
	t.Helper()
	n := map[usageentry.Purpose]int{}
	var total int64
	for _, en := range ledger(t, e.db) {
		if en.UserID != alice.UserID || en.Kind != usageentry.KindSETTLE {
			continue
		}
		n[en.Purpose]++
		total += int64(en.PromptTokens + en.CompletionTokens)
	}
	return n, total
}

// TestSideCallsStayWithinAHardQuota: under a HARD quota a side call
// reserves what it may use before it is made, and is not made when that
// does not fit, so side calls never pass the limit; the answer the quota
// admitted is answered all the same.
//   - The title after a first answer: the admin lowers alice's limit to 1
//     while her answer runs (its reservation was admitted before); the
//     answer completes, no title is asked (no TITLE entry, the question's
//     title stays), and nothing stays reserved.
//   - The rewrite of a follow-up: alice's limit leaves room for the
//     follow-up's own reservation and 10 tokens more; the follow-up is
//     answered with the question as asked (no REWRITE entry) and her
//     usage stays within the limit.
//
// In both, the counters equal the ledger's settled entries.
func TestSideCallsStayWithinAHardQuota(t *testing.T) {
	titles := func(c *chat.Config, _ *domain.TenantSettings) { c.GenerateTitles = true }
	q := domain.TokenQuota{Kind: domain.QuotaHard, UserTokens: reservation() * 100}
	t.Run("title", func(t *testing.T) {
		forEach(t, func(t *testing.T, e *env) {
			conv := e.conversation(t, alice)
			e.model.hold()
			res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: "上传文件最大是多少？"})
			require.NoError(t, err)
			one := int64(1)
			_, err = e.quota.SetUserQuota(as(admin), alice.UserID, &one)
			require.NoError(t, err)
			e.model.release()
			e.wait(t, alice, res.Attempt.ID, 0)
			chat.WaitIdle(e.eng)

			n, settled := settledBy(t, e)
			assert.Equal(t, 1, n[usageentry.PurposeANSWER])
			assert.Zero(t, n[usageentry.PurposeTITLE], "no title was asked")
			got := e.db.Client.Conversation.GetX(as(alice), conv.ID)
			assert.Equal(t, conversation.TitleSourceQUESTION, got.TitleSource)
			tot := totals(t, e.db, alice.UserID, q)
			assert.Equal(t, settled, tot.UserUsed)
			assert.Zero(t, tot.UserReserved)
		}, titles, withQuota(q))
	})
	t.Run("rewrite", func(t *testing.T) {
		forEach(t, func(t *testing.T, e *env) {
			conv := e.conversation(t, alice)
			e.ask(t, alice, conv.ID, "上传文件最大是多少？")
			chat.WaitIdle(e.eng)
			used := totals(t, e.db, alice.UserID, q).UserUsed
			limit := used + reservation() + 10
			_, err := e.quota.SetUserQuota(as(admin), alice.UserID, &limit)
			require.NoError(t, err)

			follow := e.ask(t, alice, conv.ID, "那超过以后返回什么错误码？")
			chat.WaitIdle(e.eng)
			assert.Equal(t, "COMPLETED", string(follow.attempt.Status))
			n, settled := settledBy(t, e)
			assert.Equal(t, 2, n[usageentry.PurposeANSWER])
			assert.Zero(t, n[usageentry.PurposeREWRITE], "no rewrite was asked")
			tot := totals(t, e.db, alice.UserID, q)
			assert.Equal(t, settled, tot.UserUsed)
			assert.Zero(t, tot.UserReserved)
			assert.LessOrEqual(t, tot.UserUsed, limit)
		}, withQuota(q))
	})
}
