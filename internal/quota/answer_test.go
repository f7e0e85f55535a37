package quota_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/quota"
)

// TestChargeProfiled: a resolved model without a profile leaves a charge
// as it is; a profile puts its name and prices on it, and its model when
// it names one.
func TestChargeProfiled(t *testing.T) {
	ch := quota.Charge{TenantID: "t", UserID: "u", AttemptID: uuid.New(), Model: "server"}
	assert.Equal(t, ch, ch.Profiled(modelprofile.Resolved{Model: "ignored"}))
	id := uuid.New()
	got := ch.Profiled(modelprofile.Resolved{ProfileID: &id, Name: "fast", Model: "m", PriceInputPerM: 3, PriceOutputPerM: 7})
	assert.Equal(t, "m", got.Model)
	assert.Equal(t, "fast", *got.Profile)
	assert.Equal(t, quota.Price{Input: 3, Output: 7}, *got.Price)
	assert.Equal(t, "server", ch.Profiled(modelprofile.Resolved{ProfileID: &id, Name: "fast"}).Model, "a profile without a model keeps the charge's")
}

// TestAnswerMetering: under a quota an answer's reservation is closed by
// its settle (at the charge's price, naming the model that answered) or
// its refund, and an answer without a reservation is charged; the
// completion transaction's RecordAnswerIn writes nothing then. Without a
// quota RecordAnswerIn writes the answer's SETTLE with the side calls
// held, and SettleAnswer nothing.
func TestAnswerMetering(t *testing.T) {
	q := domain.TokenQuota{Kind: domain.QuotaHard, TenantTokens: 100_000}
	forEach(t, q, func(t *testing.T, e *env) {
		ctx := context.Background()
		m := quota.New(e.db, nil)
		charge := func(q domain.TokenQuota) quota.Charge {
			return quota.Charge{TenantID: demo.TenantID, UserID: alice.UserID, AttemptID: uuid.New(), Model: "m", Price: &quota.Price{Input: 1_000_000}, Quota: q}
		}
		u := quota.Usage{PromptTokens: 100, CompletionTokens: 20}

		settled, refunded, unreserved := charge(q), charge(q), charge(q)
		for _, ch := range []quota.Charge{settled, refunded} {
			tx, err := e.db.Client.Tx(ctx)
			require.NoError(t, err)
			require.NoError(t, m.ReserveAnswer(ctx, tx, ch, time.Now(), 1000))
			require.NoError(t, tx.Commit())
		}
		assert.Equal(t, int64(2000), totals(t, e.db, alice.UserID, q).TenantReserved)
		require.NoError(t, m.RecordAnswerIn(ctx, e.db.Client, settled, "answered", u, nil, time.Now()))
		require.Len(t, ledger(t, e.db), 2, "under a quota the completion transaction writes nothing")
		require.NoError(t, m.SettleAnswer(ctx, settled, "answered", u, time.Now()))
		require.NoError(t, m.Refund(ctx, refunded.AttemptID, time.Now()))
		require.NoError(t, m.Refund(ctx, refunded.AttemptID, time.Now()), "nothing open: nothing to do")
		require.NoError(t, m.SettleAnswer(ctx, unreserved, "answered", u, time.Now()))
		es := ledger(t, e.db)
		require.Len(t, es, 5)
		kinds := map[uuid.UUID]usageentry.Kind{}
		for _, en := range es[2:] {
			kinds[*en.AttemptID] = en.Kind
			if en.Kind == usageentry.KindSETTLE {
				assert.Equal(t, "answered", en.Model)
				assert.Equal(t, int64(100), en.CostMicros, "at the charge's price")
			}
		}
		assert.Equal(t, map[uuid.UUID]usageentry.Kind{settled.AttemptID: usageentry.KindSETTLE, refunded.AttemptID: usageentry.KindREFUND,
			unreserved.AttemptID: usageentry.KindSETTLE}, kinds)
		assert.Equal(t, quota.Totals{TenantUsed: 240, UserUsed: 240}, totals(t, e.db, alice.UserID, q))

		free := charge(domain.TokenQuota{})
		require.NoError(t, m.SettleAnswer(ctx, free, "answered", u, time.Now()))
		require.Len(t, ledger(t, e.db), 5, "without a quota the settle is the completion's")
		p := &quota.Pending{}
		side := m.Metered(offline.New(offline.Options{TokenDelay: -1}), quota.SideCalls{Charge: free, Pending: p})
		_, err := side.Rewrite(ctx, llmRewrite())
		require.NoError(t, err)
		require.Len(t, ledger(t, e.db), 5, "the rewrite is held for the answer")
		tx, err := e.db.Client.Tx(ctx)
		require.NoError(t, err)
		require.NoError(t, m.RecordAnswerIn(ctx, tx.Client(), free, "answered", u, p, time.Now()))
		require.NoError(t, tx.Commit())
		p.Written()
		es = ledger(t, e.db)
		require.Len(t, es, 7)
		purposes := []usageentry.Purpose{es[5].Purpose, es[6].Purpose}
		assert.ElementsMatch(t, []usageentry.Purpose{usageentry.PurposeREWRITE, usageentry.PurposeANSWER}, purposes)
		_, err = side.Title(ctx, "上传文件最大是多少？")
		require.NoError(t, err)
		es = ledger(t, e.db)
		require.Len(t, es, 8, "after the answer a side call is charged at once")
		assert.Equal(t, usageentry.PurposeTITLE, es[7].Purpose)
		require.NoError(t, m.Flush(ctx, p, time.Now()))
		assert.Len(t, ledger(t, e.db), 8, "nothing left to flush")
	})
}

// TestSideCallsHoldUnderAHardQuota: under a HARD quota a side call first
// reserves its bound; when that does not fit it is QUOTA_EXCEEDED and
// not made, and nothing stays reserved.
func TestSideCallsHoldUnderAHardQuota(t *testing.T) {
	q := domain.TokenQuota{Kind: domain.QuotaHard, UserTokens: 10}
	forEach(t, q, func(t *testing.T, e *env) {
		m := quota.New(e.db, nil)
		ch := quota.Charge{TenantID: demo.TenantID, UserID: alice.UserID, AttemptID: uuid.New(), Model: "m", Quota: q}
		side := m.Metered(offline.New(offline.Options{TokenDelay: -1}), quota.SideCalls{Charge: ch})
		_, err := side.Title(context.Background(), "上传文件最大是多少？")
		require.Equal(t, domain.CodeQuotaExceeded, code(err), "%v", err)
		assert.Empty(t, ledger(t, e.db))
		assert.Equal(t, quota.Totals{}, totals(t, e.db, alice.UserID, q))
	})
}

// llmRewrite is a follow-up's rewrite request.
func llmRewrite() llm.RewriteRequest {
	return llm.RewriteRequest{Question: "那超过以后返回什么错误码？", History: []llm.Round{{User: "上传文件最大是多少？", Assistant: "最大 50 MB。"}}}
}
