package chat_test

import (
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/quota"
	"github.com/ragchat/ragchat/internal/viewer"
)

// askOnce asks one question in a new conversation of v and returns the
// error (the answer stays held while the model is).
func askOnce(t *testing.T, e *env, v *viewer.Viewer) error {
	t.Helper()
	_, err := e.eng.Ask(as(v), chat.AskInput{ConversationID: e.conversation(t, v).ID, ClientMessageID: uuid.NewString(), Question: "上传文件最大是多少？"})
	return err
}

// grant grants tokens to user as the admin.
func grant(t *testing.T, e *env, user string, tokens int64) *quota.Grant {
	t.Helper()
	g, err := e.quota.GrantUsage(as(admin), quota.GrantInput{UserID: user, Tokens: tokens, Note: "launch week"})
	require.NoError(t, err)
	return g
}

// TestGrantRaisesOnlyThatUsersLimit: a GRANT lets alice past her HARD
// per-user limit by the granted tokens, in this period only; bob's limit
// is unchanged; myUsage shows the grant; the ledger holds a GRANT entry
// and the audit log a quota.grant event with the note.
func TestGrantRaisesOnlyThatUsersLimit(t *testing.T) {
	r := reservation()
	q := domain.TokenQuota{Kind: domain.QuotaHard, UserTokens: r + r/2}
	forEach(t, func(t *testing.T, e *env) {
		defer chat.WaitIdle(e.eng)
		e.model.hold()
		defer e.model.release()
		require.NoError(t, askOnce(t, e, alice))
		require.Equal(t, domain.CodeQuotaExceeded, code(askOnce(t, e, alice)))
		require.NoError(t, askOnce(t, e, bob))

		g := grant(t, e, alice.UserID, r)
		assert.Equal(t, int(r), g.Entry.PromptTokens)
		assert.Equal(t, usageentry.KindGRANT, g.Entry.Kind)
		require.NoError(t, askOnce(t, e, alice), "the grant makes room for one more answer")
		require.Equal(t, domain.CodeQuotaExceeded, code(askOnce(t, e, alice)), "and for no more")
		require.Equal(t, domain.CodeQuotaExceeded, code(askOnce(t, e, bob)), "bob's limit did not move")

		u, err := e.quota.MyUsage(as(alice))
		require.NoError(t, err)
		assert.Equal(t, r, u.Granted)
		assert.Equal(t, r+r/2, *u.Limit)
		assert.Equal(t, 2*r, u.Reserved)
		u, err = e.quota.MyUsage(as(bob))
		require.NoError(t, err)
		assert.Zero(t, u.Granted)

		grants := 0
		for _, en := range ledger(t, e.db) {
			if en.Kind == usageentry.KindGRANT {
				grants++
				assert.Equal(t, alice.UserID, en.UserID)
			}
		}
		assert.Equal(t, 1, grants)
		ev, err := e.db.Client.AuditEvent.Query().Where(auditevent.Action("quota.grant")).Only(as(admin))
		require.NoError(t, err)
		assert.Equal(t, admin.UserID, ev.Actor)
		assert.Equal(t, alice.UserID, ev.TargetID)
		assert.Equal(t, "launch week", ev.Reason)
	}, withQuota(q))
}

// TestGrantNeverLiftsTheTenantLimit: however much alice is granted, the
// tenant's limit still refuses (extensions.limit "tenant").
func TestGrantNeverLiftsTheTenantLimit(t *testing.T) {
	r := reservation()
	q := domain.TokenQuota{Kind: domain.QuotaHard, UserTokens: r + r/2, TenantTokens: 2*r + r/2}
	forEach(t, func(t *testing.T, e *env) {
		defer chat.WaitIdle(e.eng)
		e.model.hold()
		defer e.model.release()
		require.NoError(t, askOnce(t, e, alice))
		grant(t, e, alice.UserID, 10*r)
		require.NoError(t, askOnce(t, e, alice))
		err := askOnce(t, e, alice)
		require.Equal(t, domain.CodeQuotaExceeded, code(err))
		var de *domain.Error
		require.ErrorAs(t, err, &de)
		assert.Equal(t, "tenant", de.Details["limit"])
	}, withQuota(q))
}

// TestConcurrentAsksUnderAGrant: the conditional reserve accounts for
// grants atomically. With a limit of 2.5 reservations and a grant of 3,
// 20 concurrent asks of alice (answers held) admit exactly 5, and her
// reserved tokens never pass limit + grant.
func TestConcurrentAsksUnderAGrant(t *testing.T) {
	r := reservation()
	q := domain.TokenQuota{Kind: domain.QuotaHard, UserTokens: 2*r + r/2}
	forEach(t, func(t *testing.T, e *env) {
		defer chat.WaitIdle(e.eng)
		e.conversation(t, alice)
		grant(t, e, alice.UserID, 3*r)
		const asks = 20
		convs := make([]uuid.UUID, asks)
		for i := range convs {
			convs[i] = e.conversation(t, alice).ID
		}
		e.model.hold()
		defer e.model.release()
		var (
			wg                sync.WaitGroup
			mu                sync.Mutex
			admitted, refused int
			other             []error
		)
		for i := range asks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: convs[i], ClientMessageID: uuid.NewString(), Question: "上传文件最大是多少？"})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					admitted++
				case code(err) == domain.CodeQuotaExceeded:
					refused++
				default:
					other = append(other, err)
				}
			}()
		}
		wg.Wait()
		require.Empty(t, other)
		assert.Equal(t, 5, admitted)
		assert.Equal(t, asks-5, refused)
		tot := totals(t, e.db, alice.UserID, q)
		assert.Equal(t, 5*r, tot.UserReserved)
		assert.Equal(t, 3*r, tot.UserGranted)
		assert.LessOrEqual(t, tot.UserUsed+tot.UserReserved, q.UserTokens+tot.UserGranted)
	}, withQuota(q))
}

// TestUserQuotaOverride: an admin's override of alice's limit takes
// precedence over the tenant's per-user setting, for her only; 0 lifts
// her per-user limit (the tenant's still binds); removing it restores the
// setting. myUsage reports the effective limit.
func TestUserQuotaOverride(t *testing.T) {
	r := reservation()
	q := domain.TokenQuota{Kind: domain.QuotaHard, UserTokens: r / 2, TenantTokens: 6*r + r/2}
	forEach(t, func(t *testing.T, e *env) {
		defer chat.WaitIdle(e.eng)
		e.model.hold()
		defer e.model.release()
		require.Equal(t, domain.CodeQuotaExceeded, code(askOnce(t, e, alice)), "the setting fits no answer")
		set := func(tokens *int64) {
			t.Helper()
			got, err := e.quota.SetUserQuota(as(admin), alice.UserID, tokens)
			require.NoError(t, err)
			assert.Equal(t, tokens, got)
		}
		two := 2*r + r/2
		set(&two)
		set(&two) // setting again updates the one override
		u, err := e.quota.MyUsage(as(alice))
		require.NoError(t, err)
		assert.Equal(t, two, *u.Limit)
		require.NoError(t, askOnce(t, e, alice))
		require.NoError(t, askOnce(t, e, alice))
		require.Equal(t, domain.CodeQuotaExceeded, code(askOnce(t, e, alice)))
		require.Equal(t, domain.CodeQuotaExceeded, code(askOnce(t, e, bob)), "bob keeps the setting")

		zero := int64(0)
		set(&zero)
		u, err = e.quota.MyUsage(as(alice))
		require.NoError(t, err)
		assert.Nil(t, u.Limit, "0: no per-user limit")
		for range 4 {
			require.NoError(t, askOnce(t, e, alice))
		}
		err = askOnce(t, e, alice)
		require.Equal(t, domain.CodeQuotaExceeded, code(err), "the tenant's limit still binds")
		var de *domain.Error
		require.ErrorAs(t, err, &de)
		assert.Equal(t, "tenant", de.Details["limit"])

		set(nil)
		u, err = e.quota.MyUsage(as(alice))
		require.NoError(t, err)
		assert.Equal(t, r/2, *u.Limit, "removed: the setting again")
		n, err := e.db.Client.AuditEvent.Query().Where(auditevent.ActionHasPrefix("quota.user.")).Count(as(admin))
		require.NoError(t, err)
		assert.Equal(t, 4, n)
	}, withQuota(q))
}
