package broker_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/cachesize"
)

// idleTopics is the broker's count of topics without a subscriber.
func idleTopics(t *testing.T, b *broker.Memory) cachesize.Size {
	t.Helper()
	for _, s := range b.CacheSizes() {
		if s.Name == "broker_idle_topics" {
			return s
		}
	}
	t.Fatal("the broker reports no broker_idle_topics")
	return cachesize.Size{}
}

// TestIdleTopicsAreBoundedLeastRecentlyActiveFirst: however many topics
// are published to, at most MaxIdleTopics are kept without a subscriber;
// the least recently active go first, retired or not, while a topic with
// a subscriber is kept whatever its age and keeps delivering.
func TestIdleTopicsAreBoundedLeastRecentlyActiveFirst(t *testing.T) {
	const bound = 8
	clock := newFakeClock()
	b := newBroker(t, broker.MemoryOptions{MaxIdleTopics: bound, Now: clock.Now})
	publish(t, b, "watched", "MESSAGE", 0)
	watched := subscribe(t, b, "watched")
	for i := range 40 {
		clock.Advance(time.Second)
		topic := fmt.Sprintf("attempt:%d", i)
		publish(t, b, topic, "DELTA", 1)
		publish(t, b, topic, "COMPLETED", 2)
		if i%2 == 0 {
			b.Retire(topic)
		}
		require.LessOrEqual(t, idleTopics(t, b).Entries, bound, "after %d topics", i+1)
	}
	assert.Equal(t, bound, idleTopics(t, b).Bound)

	newest := subscribe(t, b, "attempt:39")
	backlog, complete := newest.Backlog()
	assert.Equal(t, []int64{1, 2}, offsets(backlog), "the most recent topic keeps its backlog")
	assert.True(t, complete)
	oldest := subscribe(t, b, "attempt:0")
	backlog, _ = oldest.Backlog()
	assert.Empty(t, backlog, "the least recently active topic was forgotten")

	requireLive(t, watched)
	ev := publish(t, b, "watched", "MESSAGE", 1)
	assert.Equal(t, int64(2), ev.Offset, "a topic with a subscriber is never trimmed")
	select {
	case got := <-watched.C():
		assert.Equal(t, ev.Offset, got.Offset)
	case <-time.After(10 * time.Second):
		t.Fatal("the watched topic's subscriber got nothing")
	}
}

// TestNegativeMaxIdleTopicsKeepsEveryTopic: a negative bound turns the
// trimming off, leaving only the times (RetireAfter, IdleAfter).
func TestNegativeMaxIdleTopicsKeepsEveryTopic(t *testing.T) {
	b := newBroker(t, broker.MemoryOptions{MaxIdleTopics: -1})
	for i := range 2 * broker.DefaultMaxIdleTopics {
		publish(t, b, fmt.Sprintf("attempt:%d", i), "COMPLETED", 1)
	}
	s := idleTopics(t, b)
	assert.Equal(t, 2*broker.DefaultMaxIdleTopics, s.Entries)
	assert.Zero(t, s.Bound, "no bound by count")
}
