package chat_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/quota"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// reservation is what one ask reserves under the default settings: the
// prompt budget plus the answer limit.
func reservation() int64 {
	st := domain.DefaultTenantSettings().WithDefaults()
	return int64(st.PromptTokenBudget + st.MaxAnswerTokens)
}

// withQuota sets the tenant's token quota.
func withQuota(q domain.TokenQuota) envOption {
	return func(_ *chat.Config, st *domain.TenantSettings) {
		st.TokenQuotaPeriod, st.TokenQuotaKind, st.TokenQuotaTenantTokens, st.TokenQuotaUserTokens = q.Period, q.Kind, q.TenantTokens, q.UserTokens
	}
}

// ledger returns every usage entry of the demo tenant, oldest first.
func ledger(t *testing.T, db *store.DB) []*ent.UsageEntry {
	t.Helper()
	es, err := db.Client.UsageEntry.Query().Order(ent.Asc(usageentry.FieldCreatedAt), ent.Asc(usageentry.FieldID)).
		All(viewer.SystemJobContext(context.Background(), viewer.JobMeter))
	require.NoError(t, err)
	return es
}

// totals reads the counters of the current period.
func totals(t *testing.T, db *store.DB, user string, q domain.TokenQuota) quota.Totals {
	t.Helper()
	tot, err := quota.New(db, nil).Read(context.Background(), demo.TenantID, user, q, time.Now())
	require.NoError(t, err)
	return tot
}

// TestHardQuotaRefusesAndWritesNothing: while one answer holds its
// reservation, a second ask of the same user that would pass the user's
// HARD quota is QUOTA_EXCEEDED with extensions.resetsAt (the next UTC day),
// and nothing of it is written: no message, no attempt, no ledger entry.
// Once the first answer completes, its reservation is settled with the
// model's usage (RESERVE, then SETTLE closing it), and the counters hold
// exactly that usage.
func TestHardQuotaRefusesAndWritesNothing(t *testing.T) {
	q := domain.TokenQuota{Period: domain.QuotaDaily, Kind: domain.QuotaHard, UserTokens: reservation() * 3 / 2}
	forEach(t, func(t *testing.T, e *env) {
		first, second := e.conversation(t, alice), e.conversation(t, alice)
		e.model.hold()
		res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: first.ID, ClientMessageID: uuid.NewString(), Question: "上传文件最大是多少？"})
		require.NoError(t, err)
		_, err = e.eng.Ask(as(alice), chat.AskInput{ConversationID: second.ID, ClientMessageID: uuid.NewString(), Question: "那退款呢？"})
		require.Equal(t, domain.CodeQuotaExceeded, code(err), "%v", err)
		var de *domain.Error
		require.ErrorAs(t, err, &de)
		now := time.Now().UTC()
		want := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
		assert.Equal(t, want, de.Details["resetsAt"])
		assert.Equal(t, "user", de.Details["limit"])
		n, err := e.db.Client.Message.Query().Where(message.ConversationID(second.ID)).Count(as(alice))
		require.NoError(t, err)
		assert.Zero(t, n, "a refused ask writes no message")
		n, err = e.db.Client.Attempt.Query().Where(attempt.ConversationID(second.ID)).Count(as(alice))
		require.NoError(t, err)
		assert.Zero(t, n, "a refused ask writes no attempt")
		require.Len(t, ledger(t, e.db), 1, "only the first ask's RESERVE")

		// Another user's quota is their own.
		_, err = e.eng.Ask(as(bob), chat.AskInput{ConversationID: e.conversation(t, bob).ID, ClientMessageID: uuid.NewString(), Question: "那退款呢？"})
		require.NoError(t, err)

		e.model.release()
		o := e.wait(t, alice, res.Attempt.ID, 0)
		require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
		chat.WaitIdle(e.eng)
		var mine []*ent.UsageEntry
		for _, en := range ledger(t, e.db) {
			if en.UserID == alice.UserID {
				mine = append(mine, en)
			}
		}
		require.Len(t, mine, 2)
		assert.Equal(t, usageentry.KindRESERVE, mine[0].Kind)
		assert.Equal(t, int(reservation()), mine[0].PromptTokens)
		assert.Equal(t, res.Attempt.ID, *mine[0].AttemptID)
		assert.Equal(t, usageentry.KindSETTLE, mine[1].Kind)
		assert.Equal(t, mine[0].ID, *mine[1].ReservationID)
		used := int64(mine[1].PromptTokens + mine[1].CompletionTokens)
		assert.Positive(t, used)
		assert.Equal(t, o.attempt.PromptTokens, mine[1].PromptTokens)
		tot := totals(t, e.db, alice.UserID, q)
		assert.Equal(t, quota.Totals{TenantUsed: tot.TenantUsed, UserUsed: used}, tot, "alice's counter holds exactly her settled usage")
	}, withQuota(q))
}

// TestSoftQuotaAllowsAndFlags: a SOFT quota never refuses; passing it is
// reported (Over) and the tokens are counted all the same.
func TestSoftQuotaAllowsAndFlags(t *testing.T) {
	q := domain.TokenQuota{Period: domain.QuotaMonthly, Kind: domain.QuotaSoft, TenantTokens: 1}
	forEach(t, func(t *testing.T, e *env) {
		for range 2 {
			o := e.ask(t, alice, e.conversation(t, alice).ID, "上传文件最大是多少？")
			require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
		}
		chat.WaitIdle(e.eng)
		tot := totals(t, e.db, alice.UserID, q)
		assert.Greater(t, tot.TenantUsed, int64(1))
		assert.Zero(t, tot.TenantReserved)
		u, err := e.quota.MyUsage(as(alice))
		require.NoError(t, err)
		assert.True(t, u.OverSoftLimit)
		assert.Equal(t, domain.QuotaMonthly, u.Period)
	}, withQuota(q))
}

// TestRefundOnCancel: an answer cancelled while the model is still
// working gives its whole reservation back (a REFUND closing the RESERVE),
// so the counters are back at zero.
func TestRefundOnCancel(t *testing.T) {
	q := domain.TokenQuota{Kind: domain.QuotaHard, TenantTokens: reservation() * 10}
	forEach(t, func(t *testing.T, e *env) {
		e.model.hold()
		defer e.model.release()
		res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: e.conversation(t, alice).ID, ClientMessageID: uuid.NewString(), Question: "上传文件最大是多少？"})
		require.NoError(t, err)
		require.Equal(t, reservation(), totals(t, e.db, alice.UserID, q).TenantReserved)
		_, err = e.eng.Cancel(as(alice), res.Attempt.ID)
		require.NoError(t, err)
		chat.WaitIdle(e.eng)
		es := ledger(t, e.db)
		require.Len(t, es, 2)
		assert.Equal(t, usageentry.KindREFUND, es[1].Kind)
		assert.Equal(t, es[0].ID, *es[1].ReservationID)
		assert.Equal(t, quota.Totals{}, totals(t, e.db, alice.UserID, q))
	}, withQuota(q))
}

// TestQuotaAcrossReplicas: three engines on one database share a tenant's
// HARD quota exactly. 50 asks race (in 50 conversations, spread over the
// engines and three users) while every answer is held, so no reservation
// is settled meanwhile: exactly limit / reservation are admitted, the rest
// are QUOTA_EXCEEDED, and used + reserved never passes the limit. Once the
// answers complete, every reservation is closed and the counter equals the
// ledger's settled usage.
func TestQuotaAcrossReplicas(t *testing.T) {
	const admit = 7
	q := domain.TokenQuota{Kind: domain.QuotaHard, TenantTokens: reservation()*admit + reservation()/2}
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, withQuota(q))
		engines := []*chat.Engine{e.eng, e.newInstance(t, chat.Config{}).eng, e.newInstance(t, chat.Config{}).eng}
		users := []*viewer.Viewer{alice, bob, olga}
		const asks = 50
		convs := make([]*ent.Conversation, asks)
		for i := range convs {
			convs[i] = e.conversation(t, users[i%3])
		}
		e.model.hold()
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			admitted []uuid.UUID
			refused  int
			other    []error
		)
		for i := range asks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				v := users[i%3]
				r, err := engines[i%3].Ask(as(v), chat.AskInput{ConversationID: convs[i].ID, ClientMessageID: uuid.NewString(), Question: "上传文件最大是多少？"})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					admitted = append(admitted, r.Attempt.ID)
				case code(err) == domain.CodeQuotaExceeded:
					refused++
				default:
					other = append(other, err)
				}
			}()
		}
		wg.Wait()
		require.Empty(t, other)
		assert.Len(t, admitted, admit, "exactly limit / reservation asks fit")
		assert.Equal(t, asks-admit, refused)
		tot := totals(t, db, "", q)
		assert.LessOrEqual(t, tot.TenantUsed+tot.TenantReserved, q.TenantTokens)
		assert.Equal(t, reservation()*admit, tot.TenantReserved)
		e.model.release()
		for i, id := range admitted {
			_ = i
			o := e.wait(t, admin, id, 0)
			_ = o
		}
		for _, eng := range engines {
			chat.WaitIdle(eng)
		}
		var settled int64
		open := map[uuid.UUID]bool{}
		for _, en := range ledger(t, db) {
			switch en.Kind {
			case usageentry.KindRESERVE:
				open[en.ID] = true
			case usageentry.KindSETTLE:
				require.NotNil(t, en.ReservationID)
				delete(open, *en.ReservationID)
				settled += int64(en.PromptTokens + en.CompletionTokens)
			}
		}
		assert.Empty(t, open, "every reservation is settled")
		tot = totals(t, db, "", q)
		assert.Equal(t, quota.Totals{TenantUsed: settled, UserUsed: tot.UserUsed}, tot)
		assert.LessOrEqual(t, tot.TenantUsed, q.TenantTokens)
		_ = dialect.Postgres
	})
}
