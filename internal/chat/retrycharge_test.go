package chat_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// recordingLimiter is the database limiter, recording whether each Take
// ran in an Ent transaction and how many asks were given back.
type recordingLimiter struct {
	*askrate.DBLimiter
	mu        sync.Mutex
	takesInTx []bool
	gives     int
}

func (l *recordingLimiter) Take(ctx context.Context, key string, r askrate.Rate) (time.Duration, error) {
	l.mu.Lock()
	l.takesInTx = append(l.takesInTx, ent.TxFromContext(ctx) != nil)
	l.mu.Unlock()
	return l.DBLimiter.Take(ctx, key, r)
}

func (l *recordingLimiter) Give(ctx context.Context, key string, r askrate.Rate) {
	l.mu.Lock()
	l.gives++
	l.mu.Unlock()
	l.DBLimiter.Give(ctx, key, r)
}

// TakeStep makes the ask's PostgreSQL statement call Take, so that every
// charge of either request is seen.
func (l *recordingLimiter) TakeStep(string, string, askrate.Rate) (step entsql.Querier, ok bool) {
	return nil, false
}

func (l *recordingLimiter) reset() (inTx []bool, gives int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	inTx, gives = l.takesInTx, l.gives
	l.takesInTx, l.gives = nil, 0
	return inTx, gives
}

// TestRetryChargesLikeAnAsk: with the database's limiter (which takes part
// in transactions), a retry charges the ask rate inside its own
// transaction, as an ask does, so a retry that creates nothing costs
// nothing without a refund: an admitted retry takes once, in the
// transaction; one refused by the rate takes once, in the transaction
// that is rolled back, and is given nothing back; the bucket is then still
// empty (nothing was charged outside). Both backends.
func TestRetryChargesLikeAnAsk(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		lim := &recordingLimiter{DBLimiter: askrate.NewDBLimiter(db, nil)}
		e := newEnvDeps(t, db, nil, func(d *chat.Deps) { d.AskLimiter = lim }, func(_ *chat.Config, st *domain.TenantSettings) {
			st.AskBurst, st.AskRatePerMinute = 2, 0.001 // no refill during the test
		})
		asked := e.ask(t, alice, e.conversation(t, alice).ID, "上传文件最大是多少？")
		inTx, gives := lim.reset()
		require.Equal(t, []bool{true}, inTx, "the ask took once, in its transaction")
		require.Zero(t, gives)

		retried, err := e.eng.Retry(as(alice), chat.RetryInput{AttemptID: asked.attempt.ID, ClientRequestID: uuid.NewString()})
		require.NoError(t, err)
		e.wait(t, alice, retried.Attempt.ID, 0)
		inTx, gives = lim.reset()
		assert.Equal(t, []bool{true}, inTx, "the retry took once, in its transaction")
		assert.Zero(t, gives, "an admitted retry gives nothing back")

		_, err = e.eng.Retry(as(alice), chat.RetryInput{AttemptID: asked.attempt.ID, ClientRequestID: uuid.NewString()})
		require.Equal(t, domain.CodeRateLimited, code(err), "%v", err)
		inTx, gives = lim.reset()
		assert.Equal(t, []bool{true}, inTx, "the refused retry was charged in its transaction")
		assert.Zero(t, gives, "nothing to give back: the transaction was rolled back")
		chat.WaitIdle(e.eng)
	})
}
