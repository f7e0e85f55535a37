package support_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/supportgrant"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/support"
)

// TestSupportGrantDecisions covers the workflow's lifecycle rules: approval
// restarts the clock, a decided grant answers CONFLICT, an expired one
// NOT_FOUND (by the service's clock too), and AUTO approves on request.
func TestSupportGrantDecisions(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		w := grantedWorld(t, e, true)
		assert.Equal(t, supportgrant.StatusPENDING, w.grant.Status)
		assert.Equal(t, int64(24*3600), w.grant.DurationSeconds)
		e.clock.advance(time.Hour)
		g, err := e.svc.Approve(as(alice), w.grant.ID)
		require.NoError(t, err)
		assert.True(t, g.ExpiresAt.After(w.grant.ExpiresAt), "approval restarts the grant's clock")
		_, err = e.svc.Deny(as(alice), g.ID, "")
		assert.Equal(t, domain.CodeConflict, code(err))
		assert.Equal(t, "APPROVED", e.svc.State(g))
		e.clock.advance(25 * time.Hour)
		assert.Equal(t, "EXPIRED", e.svc.State(g))
		_, err = e.svc.Revoke(as(alice), g.ID)
		assert.Equal(t, domain.CodeNotFound, code(err))
	})
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		g, err := e.svc.Request(as(sam), support.RequestInput{ConversationID: conv.ID, Reason: "auto"})
		require.NoError(t, err)
		assert.Equal(t, supportgrant.StatusAPPROVED, g.Status)
		_, err = e.db.Client.Conversation.Get(as(sam), conv.ID)
		require.NoError(t, err)
	}, func(st *domain.TenantSettings) { st.SupportApproval = domain.SupportApprovalAuto })
}

// TestSupportGrantRacingDecisions: approvals and denials of one request
// racing from many goroutines have exactly one winner; every other caller
// gets CONFLICT, and the grant ends in the winner's state.
func TestSupportGrantRacingDecisions(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		w := grantedWorld(t, e, true)
		baseline := goroutines()
		const n = 8
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i%2 == 0 {
					_, errs[i] = e.svc.Approve(as(alice), w.grant.ID)
				} else {
					_, errs[i] = e.svc.Deny(as(alice), w.grant.ID, "")
				}
			}()
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			if err == nil {
				require.Equal(t, -1, winner, "two decisions won")
				winner = i
				continue
			}
			assert.Equal(t, domain.CodeConflict, code(err), "loser %d: %v", i, err)
		}
		require.NotEqual(t, -1, winner, "no decision won")
		g, err := e.db.Client.SupportGrant.Get(as(alice), w.grant.ID)
		require.NoError(t, err)
		want := supportgrant.StatusAPPROVED
		if winner%2 == 1 {
			want = supportgrant.StatusDENIED
		}
		assert.Equal(t, want, g.Status)
		assertGoroutinesBack(t, baseline)
	})
}
