package authwatch_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/authwatch"
	"github.com/ragchat/ragchat/internal/viewer"
)

// at is a token issue time: second s of a fixed day.
func at(s int) time.Time { return time.Date(2026, 12, 1, 9, 0, s, 0, time.UTC) }

func as(user string, issued time.Time, roles []viewer.Role, groups ...string) *viewer.Viewer {
	return &viewer.Viewer{TenantID: "acme", UserID: user, Roles: roles, Groups: groups, IssuedAt: issued}
}

var (
	admin  = []viewer.Role{viewer.RoleAdmin}
	member = []viewer.Role{viewer.RoleMember}
)

// ended reports whether ctx ended because its token was superseded,
// waiting up to wait for it.
func ended(ctx context.Context, wait time.Duration) bool {
	if ctx.Err() != nil {
		return errors.Is(context.Cause(ctx), authwatch.ErrSuperseded)
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return errors.Is(context.Cause(ctx), authwatch.ErrSuperseded)
	case <-t.C:
		return false
	}
}

// TestViewersEndStreamsOfSupersededTokens: a stream held with a token ends
// when the same user presents a token issued later with other roles or
// groups, on the replica that saw it and on the other one; it is kept when
// the later token grants the same (in any order), when the other token is
// not later, or when it is another user's.
func TestViewersEndStreamsOfSupersededTokens(t *testing.T) {
	cases := []struct {
		name string
		held *viewer.Viewer
		seen *viewer.Viewer
		ends bool
	}{
		{"demoted", as("ann", at(0), admin), as("ann", at(10), member), true},
		{"promoted", as("ann", at(0), member), as("ann", at(10), admin), true},
		{"group removed", as("ann", at(0), member, "ops", "hr"), as("ann", at(10), member, "ops"), true},
		{"same claims, reordered", as("ann", at(0), []viewer.Role{viewer.RoleAgent, viewer.RoleMember}, "ops", "hr"),
			as("ann", at(10), []viewer.Role{viewer.RoleMember, viewer.RoleAgent}, "hr", "ops"), false},
		{"same second", as("ann", at(0), admin), as("ann", at(0), member), false},
		{"older token", as("ann", at(10), admin), as("ann", at(0), member), false},
		{"another user", as("ann", at(0), admin), as("bob", at(10), member), false},
	}
	eachDeployment(t, func(t *testing.T, r replicas) {
		a, b := authwatch.StartViewers(r.a, quiet, 0), authwatch.StartViewers(r.b, quiet, 0)
		t.Cleanup(a.Close)
		t.Cleanup(b.Close)
		for i, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				// Each case its own tenant, so that cases see nothing of
				// each other's tokens.
				held, seen := *tc.held, *tc.seen
				held.TenantID = "t" + string(rune('a'+i))
				seen.TenantID = held.TenantID
				a.Seen(context.Background(), &held)
				local, releaseLocal := a.Hold(context.Background(), &held)
				defer releaseLocal()
				remote, releaseRemote := b.Hold(context.Background(), &held)
				defer releaseRemote()

				a.Seen(context.Background(), &seen)
				if !tc.ends {
					// Both replicas have handled everything a published
					// once a marker published after it arrives.
					marker(t, r.a, r.b)
					assert.NoError(t, local.Err(), "the stream on the replica that saw the token")
					assert.NoError(t, remote.Err(), "the stream on the other replica")
					return
				}
				assert.True(t, ended(local, 0), "the stream on the replica that saw the token ends at once")
				assert.True(t, ended(remote, hangGuard), "the stream on the other replica ends")
				// Opening a stream with the superseded token is refused at
				// once, on either replica.
				again, release := b.Hold(context.Background(), &held)
				defer release()
				assert.True(t, ended(again, 0), "a new stream with the superseded token")
				newer, releaseNewer := b.Hold(context.Background(), &seen)
				defer releaseNewer()
				assert.NoError(t, newer.Err(), "a stream with the newer token")
			})
		}
	})
}

// TestViewersForgetReleasedStreams: a released hold is forgotten (a later
// token ends nothing and leaks nothing), and a hold whose context ended is
// released by itself.
func TestViewersForgetReleasedStreams(t *testing.T) {
	eachDeployment(t, func(t *testing.T, r replicas) {
		w := authwatch.StartViewers(r.a, quiet, 0)
		t.Cleanup(w.Close)
		held, release := w.Hold(context.Background(), as("ann", at(0), admin))
		release()
		require.ErrorIs(t, held.Err(), context.Canceled)
		assert.NotErrorIs(t, context.Cause(held), authwatch.ErrSuperseded)
		parent, cancel := context.WithCancel(context.Background())
		held2, release2 := w.Hold(parent, as("ann", at(0), admin))
		defer release2()
		cancel()
		<-held2.Done()
		w.Seen(context.Background(), as("ann", at(10), member))
		assert.NotErrorIs(t, context.Cause(held2), authwatch.ErrSuperseded, "an ended stream is not superseded")
		require.Eventually(t, func() bool { return authwatch.HeldStreams(w) == 0 }, hangGuard, time.Millisecond, "no hold is left")
	})
}
