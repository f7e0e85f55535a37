package chat_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
)

// TestRetryReservesLikeAnAsk: a retry under a HARD quota reserves its
// answer's tokens up front as an ask does. While one retry holds its
// reservation, a second retry that would pass the user's quota is
// QUOTA_EXCEEDED with extensions.resetsAt, and nothing of it is written
// (no attempt, no ledger entry, no counter change); the quota leaves
// room for two reservations beside the three asks' usage, not three. The held retry's
// answer settles its own reservation; a cancelled retry is refunded.
func TestRetryReservesLikeAnAsk(t *testing.T) {
	q := domain.TokenQuota{Kind: domain.QuotaHard, UserTokens: reservation() * 3}
	forEach(t, func(t *testing.T, e *env) {
		first := e.ask(t, alice, e.conversation(t, alice).ID, "上传文件最大是多少？")
		second := e.ask(t, alice, e.conversation(t, alice).ID, "那退款呢？")
		third := e.ask(t, alice, e.conversation(t, alice).ID, "可以开发票吗？")
		chat.WaitIdle(e.eng)
		before := len(ledger(t, e.db))

		e.model.hold()
		held, err := e.eng.Retry(as(alice), chat.RetryInput{AttemptID: first.attempt.ID, ClientRequestID: uuid.NewString()})
		require.NoError(t, err)
		cancelled, err := e.eng.Retry(as(alice), chat.RetryInput{AttemptID: second.attempt.ID, ClientRequestID: uuid.NewString()})
		require.NoError(t, err)
		tot := totals(t, e.db, alice.UserID, q)
		require.Equal(t, 2*reservation(), tot.UserReserved, "each retry reserves prompt budget plus answer limit")

		_, err = e.eng.Retry(as(alice), chat.RetryInput{AttemptID: third.attempt.ID, ClientRequestID: uuid.NewString()})
		require.Equal(t, domain.CodeQuotaExceeded, code(err), "%v", err)
		var de *domain.Error
		require.ErrorAs(t, err, &de)
		assert.NotEmpty(t, de.Details["resetsAt"])
		assert.Equal(t, "user", de.Details["limit"])
		assert.Equal(t, tot, totals(t, e.db, alice.UserID, q), "a refused retry changes no counter")
		require.Len(t, ledger(t, e.db), before+2, "a refused retry writes no ledger entry")
		n, err := e.db.Client.Attempt.Query().Where(attempt.RetryOfID(third.attempt.ID)).Count(as(alice))
		require.NoError(t, err)
		assert.Zero(t, n, "a refused retry writes no attempt")

		_, err = e.eng.Cancel(as(alice), cancelled.Attempt.ID)
		require.NoError(t, err)
		e.model.release()
		o := e.wait(t, alice, held.Attempt.ID, 0)
		require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
		chat.WaitIdle(e.eng)

		closes := map[uuid.UUID]*ent.UsageEntry{}
		reserves := map[uuid.UUID]*ent.UsageEntry{}
		for _, en := range ledger(t, e.db) {
			switch {
			case en.AttemptID == nil:
			case en.Kind == usageentry.KindRESERVE:
				reserves[*en.AttemptID] = en
			case en.ReservationID != nil:
				closes[*en.AttemptID] = en
			}
		}
		for id, kind := range map[uuid.UUID]usageentry.Kind{held.Attempt.ID: usageentry.KindSETTLE, cancelled.Attempt.ID: usageentry.KindREFUND} {
			r, c := reserves[id], closes[id]
			require.NotNil(t, r, "the retry %s reserved", id)
			require.NotNil(t, c, "the retry %s's reservation is closed", id)
			assert.Equal(t, int(reservation()), r.PromptTokens)
			assert.Equal(t, kind, c.Kind)
			assert.Equal(t, r.ID, *c.ReservationID)
		}
		assert.Equal(t, o.attempt.PromptTokens, closes[held.Attempt.ID].PromptTokens)
		assert.Zero(t, totals(t, e.db, alice.UserID, q).UserReserved, "nothing stays reserved")
	}, withQuota(q))
}
