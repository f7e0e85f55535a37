package askrate_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestDBAskLimiter steps the shared limiter on both backends: a full
// burst, a refusal with a wait of at most one interval, a bucket per key,
// an ask given back and taken again, and never more than the burst. Two
// limiters on one database stand for two instances: they share the
// buckets.
func TestDBAskLimiter(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		a, b := askrate.NewDBLimiter(db, nil), askrate.NewDBLimiter(db, nil)
		ctx := context.Background()
		r := askrate.Rate{PerMinute: 0.01, Burst: 2} // one ask per 100 min: no refill during the test
		interval := 100 * time.Minute
		steps := []struct {
			name    string
			l       *askrate.DBLimiter
			key     string
			give    bool
			limited bool
		}{
			{name: "burst 1 on instance a", l: a, key: "t\x00u"},
			{name: "burst 2 on instance b", l: b, key: "t\x00u"},
			{name: "limited on a", l: a, key: "t\x00u", limited: true},
			{name: "limited on b", l: b, key: "t\x00u", limited: true},
			{name: "another user has their own bucket", l: a, key: "t\x00v"},
			{name: "the same user in another tenant too", l: b, key: "s\x00u"},
			{name: "an ask given back on b", l: b, key: "t\x00u", give: true},
			{name: "is taken again on a", l: a, key: "t\x00u"},
			{name: "and only once", l: b, key: "t\x00u", limited: true},
			{name: "gives never fill above the burst", l: a, key: "t\x00v", give: true},
			{name: "v: second give", l: a, key: "t\x00v", give: true},
			{name: "v: burst 1", l: b, key: "t\x00v"},
			{name: "v: burst 2", l: b, key: "t\x00v"},
			{name: "v: limited", l: a, key: "t\x00v", limited: true},
		}
		for _, s := range steps {
			if s.give {
				s.l.Give(ctx, s.key, r)
				continue
			}
			wait, err := s.l.Take(ctx, s.key, r)
			require.NoError(t, err, s.name)
			if !s.limited {
				assert.Zero(t, wait, s.name)
				continue
			}
			assert.Positive(t, wait, s.name)
			assert.LessOrEqual(t, wait, interval, s.name)
		}
		wait, err := a.Take(ctx, "t\x00w", askrate.Rate{PerMinute: 10, Burst: 0})
		require.NoError(t, err)
		assert.Positive(t, wait, "a burst of zero admits nothing")

		// Only the limiter reaches the table: Ent refuses every viewer and
		// job.
		member := &viewer.Viewer{TenantID: demo.TenantID, UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}}
		admin := &viewer.Viewer{TenantID: demo.TenantID, UserID: "root", Roles: []viewer.Role{viewer.RoleAdmin}}
		for _, c := range []context.Context{viewer.NewContext(ctx, member), viewer.NewContext(ctx, admin), viewer.SystemJobContext(ctx, viewer.JobPurge)} {
			_, err := db.Client.AskRate.Query().Count(c)
			assert.Error(t, err, "reading ask_rates through Ent")
			err = db.Client.AskRate.Create().SetTenantID("t").SetUserID("x").SetTat(0).Exec(c)
			assert.Error(t, err, "writing ask_rates through Ent")
		}
	})
}

// TestDBAskLimiterRefill steps refills on SQLite, whose limiter uses the
// application's clock (PostgreSQL's uses the database's, which a test
// cannot move): the same steps and waits as the in-process limiter.
func TestDBAskLimiterRefill(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		if db.Dialect == "postgres" {
			t.Skip("the PostgreSQL limiter reads the database clock")
		}
		now := time.Unix(1_700_000_000, 0)
		l := askrate.NewDBLimiter(db, func() time.Time { return now })
		ctx := context.Background()
		r := askrate.Rate{PerMinute: 6, Burst: 2} // one ask per 10 s
		steps := []struct {
			name    string
			advance time.Duration
			give    bool
			wait    time.Duration
		}{
			{name: "burst 1"},
			{name: "burst 2"},
			{name: "limited", wait: 10 * time.Second},
			{name: "half refilled", advance: 5 * time.Second, wait: 5 * time.Second},
			{name: "refilled", advance: 5 * time.Second},
			{name: "limited again", wait: 10 * time.Second},
			{name: "an ask given back", give: true},
			{name: "is taken again"},
			{name: "never above the burst", advance: time.Hour},
			{name: "second"},
			{name: "third is limited", wait: 10 * time.Second},
		}
		for _, s := range steps {
			now = now.Add(s.advance)
			if s.give {
				l.Give(ctx, "t\x00u", r)
				continue
			}
			wait, err := l.Take(ctx, "t\x00u", r)
			require.NoError(t, err, s.name)
			assert.Equal(t, s.wait, wait, s.name)
		}
	})
}

// TestDBAskLimiterConcurrentTakes: many goroutines on several limiters
// (instances) take from one bucket at once; exactly the burst is admitted.
// On PostgreSQL the takes really run concurrently, on many connections.
func TestDBAskLimiterConcurrentTakes(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		const burst, instances, perInstance = 10, 4, 20
		r := askrate.Rate{PerMinute: 0.01, Burst: burst}
		var admitted, refused atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range instances {
			l := askrate.NewDBLimiter(db, nil)
			for range perInstance {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					wait, err := l.Take(context.Background(), "demo\x00crowd", r)
					if !assert.NoError(t, err) {
						return
					}
					if wait == 0 {
						admitted.Add(1)
					} else {
						refused.Add(1)
					}
				}()
			}
		}
		close(start)
		wg.Wait()
		assert.EqualValues(t, burst, admitted.Load())
		assert.EqualValues(t, instances*perInstance-burst, refused.Load())
	})
}
