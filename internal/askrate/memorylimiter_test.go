package askrate_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ragchat/ragchat/internal/askrate"
)

// TestMemoryAskLimiter steps a token bucket on a fake clock: a full burst,
// a refusal with the wait until the next ask, refill, a returned ask, and
// buckets per key.
func TestMemoryAskLimiter(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := askrate.NewMemoryLimiter(func() time.Time { return now })
	ctx := context.Background()
	r := askrate.Rate{PerMinute: 6, Burst: 2} // one ask per 10 s
	type step struct {
		name    string
		advance time.Duration
		key     string
		give    bool
		wait    time.Duration // expected from Take (0: allowed)
	}
	steps := []step{
		{name: "burst 1", key: "a"},
		{name: "burst 2", key: "a"},
		{name: "limited", key: "a", wait: 10 * time.Second},
		{name: "another key has its own bucket", key: "b"},
		{name: "half refilled", advance: 5 * time.Second, key: "a", wait: 5 * time.Second},
		{name: "refilled", advance: 5 * time.Second, key: "a"},
		{name: "limited again", key: "a", wait: 10 * time.Second},
		{name: "an ask given back", key: "a", give: true},
		{name: "is taken again", key: "a"},
		{name: "never above the burst", advance: time.Hour, key: "a"},
		{name: "second", key: "a"},
		{name: "third is limited", key: "a", wait: 10 * time.Second},
	}
	for _, s := range steps {
		now = now.Add(s.advance)
		if s.give {
			l.Give(ctx, s.key, r)
			continue
		}
		wait, err := l.Take(ctx, s.key, r)
		assert.NoError(t, err, s.name)
		assert.Equal(t, s.wait, wait.Round(time.Millisecond), s.name)
	}
}
