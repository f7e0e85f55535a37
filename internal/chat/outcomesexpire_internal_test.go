package chat

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
)

// TestRecentOutcomesExpireWhenIdle: expire, which the engine's reaper
// tick calls, forgets the rows older than outcomeTTL without a put or a
// get, so that an idle engine keeps nothing.
func TestRecentOutcomesExpireWhenIdle(t *testing.T) {
	var o recentOutcomes
	t0 := time.Now()
	o.put(&ent.Attempt{ID: uuid.New()}, nil, t0)
	o.put(&ent.Attempt{ID: uuid.New()}, nil, t0.Add(outcomeTTL/2))
	o.expire(t0.Add(outcomeTTL))
	if n := o.len(); n != 2 {
		t.Fatalf("%d rows kept within the TTL, want 2", n)
	}
	o.expire(t0.Add(outcomeTTL + time.Second))
	if n := o.len(); n != 1 {
		t.Fatalf("%d rows kept after the first expired, want 1", n)
	}
	o.expire(t0.Add(2 * outcomeTTL))
	if n := o.len(); n != 0 || o.order != nil {
		t.Fatalf("%d rows kept after all expired (order %v)", n, o.order)
	}
}
