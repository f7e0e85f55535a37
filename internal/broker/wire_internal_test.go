package broker

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/jsonenc"
)

func TestSplitFramesCutsBetweenCodePoints(t *testing.T) {
	body := []byte(`[{"t":"` + strings.Repeat("a天🚀é", 500) + `"}]`)
	var seq uint64 = 41
	frames, err := splitFrames("inst-1", &seq, body, 300)
	require.NoError(t, err)
	require.Greater(t, len(frames), 10)
	assert.Equal(t, uint64(41+len(frames)), seq)
	var joined []byte
	for i, f := range frames {
		assert.LessOrEqual(t, len(f), 300)
		assert.True(t, utf8.Valid(f), "frame %d is valid UTF-8 (NOTIFY payloads are text)", i)
		h, piece, ok := parseFrame(f)
		require.True(t, ok)
		assert.Equal(t, frameHeader{origin: "inst-1", seq: uint64(42 + i), part: i + 1, parts: len(frames)}, h)
		joined = append(joined, piece...)
	}
	assert.Equal(t, body, joined)

	_, err = splitFrames("inst-1", &seq, body, 70)
	assert.Error(t, err, "no room for a body")
	one, err := splitFrames("inst-1", &seq, []byte(`[]`), 300)
	require.NoError(t, err)
	assert.Len(t, one, 1)
}

func TestParseFrameRejectsGarbage(t *testing.T) {
	for _, f := range []string{
		"", "no newline", "rcb1 o 1 1 1", "rcb2 o 1 1 1\n[]", "rcb1 o x 1 1\n[]",
		"rcb1 o 1 2 1\n[]", "rcb1 o 1 0 1\n[]", "rcb1 o 1 1\n[]",
	} {
		_, _, ok := parseFrame([]byte(f))
		assert.False(t, ok, "%q", f)
	}
}

func TestEncodeBatchKeepsDataByteForByte(t *testing.T) {
	items := []*outItem{
		{op: opEvent, ev: Event{Topic: "t", Kind: "A", Seq: 3, Data: []byte(`{"t":"<b>&</b>"}`)}, first: 1, last: 4},
		{op: opEvent, ev: Event{Topic: "t", Kind: "B", Data: []byte("{ \"spaced\": 1 }")}, first: 5, last: 5},
		{op: opEvent, ev: Event{Topic: "t", Kind: "C", Data: []byte{0, 0xff}}, first: 6, last: 6},
		{op: opRetire, ev: Event{Topic: "t"}},
	}
	body, err := encodeBatch(items, map[string]int64{"u": 9})
	require.NoError(t, err)
	assert.Contains(t, string(body), `"d":{"t":"<b>&</b>"}`, "compact JSON travels as it is")

	m := newMemory(MemoryOptions{JanitorInterval: -1}, true, nil)
	defer m.Close()
	seal := testSealer(t)
	rx := newReceiver("self", m, slog.New(slog.DiscardHandler), &counters{}, seal, DefaultMaxFrameAge)
	s, err := m.Subscribe(t.Context(), "t")
	require.NoError(t, err)
	var seq uint64
	frames, err := splitFrames("other", &seq, body, 7000)
	require.NoError(t, err)
	rx.frame(seal.seal(frames[0], time.Now()))
	var got []Event
	for range 3 {
		got = append(got, <-s.C())
	}
	for i, ev := range got {
		assert.Equal(t, items[i].ev.Data, ev.Data)
		assert.Equal(t, items[i].ev.Kind, ev.Kind)
	}
	assert.Equal(t, 3, got[0].Seq)
	assert.Equal(t, 1, m.Stats().Retired)
}

// testSecret is the broker secret of the tests.
var testSecret = []byte("the broker secret of the tests, 32+ bytes")

// testSealer seals frames with testSecret for a test channel.
func testSealer(t testing.TB) *sealer {
	t.Helper()
	s, err := newSealer(testSecret, nil, "test", "ch")
	require.NoError(t, err)
	return s
}

// rxHarness is a receiver over a remote-mode Memory, fed with sealed
// frames of hand-made batches.
type rxHarness struct {
	t     *testing.T
	m     *Memory
	rx    *receiver
	seal  *sealer
	stats *counters
	seq   map[string]uint64
}

func newRxHarness(t *testing.T) *rxHarness {
	m := newMemory(MemoryOptions{JanitorInterval: -1}, true, nil)
	t.Cleanup(func() { _ = m.Close() })
	st := &counters{}
	seal := testSealer(t)
	return &rxHarness{t: t, m: m, rx: newReceiver("self", m, slog.New(slog.DiscardHandler), st, seal, DefaultMaxFrameAge),
		seal: seal, stats: st, seq: map[string]uint64{}}
}

// frame delivers one inner frame, sealed now.
func (h *rxHarness) frame(f []byte) { h.rx.frame(h.seal.seal(f, time.Now())) }

// send delivers a batch of events from origin, as frames of at most
// maxFrame bytes; skip drops the frames at those indexes.
func (h *rxHarness) send(origin string, maxFrame int, evs []wireEvent, skip ...int) {
	h.t.Helper()
	body, err := jsonenc.Marshal(evs)
	require.NoError(h.t, err)
	seq := h.seq[origin]
	frames, err := splitFrames(origin, &seq, body, maxFrame)
	require.NoError(h.t, err)
	h.seq[origin] = seq
	for i, f := range frames {
		if !containsInt(skip, i) {
			h.frame(f)
		}
	}
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func ev(topic, kind string, first, last int64) wireEvent {
	return wireEvent{Topic: topic, Kind: kind, First: first, Last: last}
}

func (h *rxHarness) sub(topic string) *Subscription {
	s, err := h.m.Subscribe(h.t.Context(), topic)
	require.NoError(h.t, err)
	return s
}

func ended(s *Subscription) error {
	select {
	case <-s.Done():
		return s.Err()
	default:
		return nil
	}
}

func TestReceiverIgnoresOwnAndRepeatedFramesAndJoinsParts(t *testing.T) {
	h := newRxHarness(t)
	s := h.sub("t")
	big := wireEvent{Topic: "t", Kind: "SOURCES", First: 1, Data: []byte(`"` + strings.Repeat("x", 2000) + `"`)}
	h.send("self", 7000, []wireEvent{ev("t", "MINE", 1, 0)})
	h.send("o", 300, []wireEvent{big})
	got := <-s.C()
	assert.Equal(t, "SOURCES", got.Kind)
	assert.Equal(t, []byte(big.Data), got.Data)

	// The same frame again (a retried send) is ignored.
	var seq uint64 = h.seq["o"]
	body, _ := jsonenc.Marshal([]wireEvent{ev("t", "NEXT", 2, 0)})
	frames, _ := splitFrames("o", &seq, body, 7000)
	h.seq["o"] = seq
	h.frame(frames[0])
	h.frame(frames[0])
	assert.Equal(t, "NEXT", (<-s.C()).Kind)
	assert.Empty(t, s.C())
	assert.NoError(t, ended(s))
	assert.Zero(t, h.stats.resets.Load())
}

func TestReceiverResetsWhenFramesAreLost(t *testing.T) {
	h := newRxHarness(t)
	remote := h.sub("remote")
	h.send("o", 7000, []wireEvent{ev("remote", "STARTED", 1, 0)})
	<-remote.C()
	_, err := h.m.Publish(h.t.Context(), Event{Topic: "mine", Kind: "STARTED"})
	require.NoError(t, err)
	local := h.sub("mine")

	// A batch split in three loses its middle frame: the batch is
	// skipped, and the gap in the frame seqs resets remote-fed topics.
	big := wireEvent{Topic: "remote", Kind: "SOURCES", First: 2, Data: []byte(`"` + strings.Repeat("x", 600) + `"`)}
	h.send("o", 300, []wireEvent{big}, 1)
	assert.ErrorIs(t, ended(remote), ErrLagged)
	assert.NoError(t, ended(local), "topics only published here are not reset")
	assert.Equal(t, uint64(1), h.stats.resets.Load())

	again := h.sub("remote")
	backlog, complete := again.Backlog()
	assert.Len(t, backlog, 1)
	assert.False(t, complete)
	h.send("o", 7000, []wireEvent{ev("remote", "DELTA", 3, 0)})
	assert.Equal(t, "DELTA", (<-again.C()).Kind)
	assert.NoError(t, ended(again), "after a reset the next event is taken as it comes")
}

func TestRelayRules(t *testing.T) {
	type step struct {
		origin      string
		first, last int64
		lost        bool // a lost marker up to last instead of an event
		local       bool // a local publish instead
		wantGap     bool
	}
	tests := []struct {
		name         string
		subscribeAt  int // the subscription is made before this step
		steps        []step
		wantComplete bool
		wantEnded    bool
	}{
		{"from the start", 0, []step{{origin: "a", first: 1, last: 1}, {origin: "a", first: 2, last: 5}, {origin: "a", first: 6, last: 6}}, true, false},
		{"two origins from their starts", 0, []step{{origin: "a", first: 1, last: 1}, {origin: "b", first: 1, last: 1}, {origin: "a", first: 2, last: 2}}, true, false},
		{"origin starts the topic afresh", 0, []step{{origin: "a", first: 1, last: 3}, {origin: "a", first: 1, last: 1}}, true, false},
		{"joined midway: incomplete, not ended", 0, []step{{origin: "a", first: 4, last: 4}, {origin: "a", first: 5, last: 5}}, false, false},
		{"gap", 0, []step{{origin: "a", first: 1, last: 1}, {origin: "a", first: 3, last: 3, wantGap: true}}, false, true},
		{"backwards", 0, []step{{origin: "a", first: 1, last: 4}, {origin: "a", first: 3, last: 3, wantGap: true}}, false, true},
		{"synced locally, origin turns out ahead", 1, []step{{local: true}, {origin: "a", first: 2, last: 2, wantGap: true}}, false, true},
		{"lost marker past the cursor", 0, []step{{origin: "a", first: 1, last: 1}, {origin: "a", last: 2, lost: true, wantGap: true}}, false, true},
		{"lost marker already covered", 0, []step{{origin: "a", first: 1, last: 3}, {origin: "a", last: 2, lost: true}}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMemory(MemoryOptions{JanitorInterval: -1}, true, nil)
			defer m.Close()
			var s *Subscription
			for i, st := range tt.steps {
				if i == tt.subscribeAt {
					var err error
					s, err = m.Subscribe(t.Context(), "t")
					require.NoError(t, err)
					_, complete := s.Backlog()
					// An unknown topic may have started elsewhere; one
					// this instance started is held from its start.
					assert.Equal(t, i > 0, complete)
				}
				var gap bool
				switch {
				case st.local:
					_, err := m.Publish(t.Context(), Event{Topic: "t", Kind: "LOCAL"})
					require.NoError(t, err)
				case st.lost:
					gap = m.relayLost("t", st.origin, st.last)
				default:
					var err error
					gap, err = m.relay(Event{Topic: "t", Kind: "E"}, st.origin, st.first, st.last)
					require.NoError(t, err)
				}
				assert.Equal(t, st.wantGap, gap, "step %d", i)
			}
			if tt.wantEnded {
				assert.ErrorIs(t, ended(s), ErrLagged)
			} else {
				assert.NoError(t, ended(s))
			}
			late, err := m.Subscribe(t.Context(), "t")
			require.NoError(t, err)
			_, complete := late.Backlog()
			assert.Equal(t, tt.wantComplete, complete)
		})
	}
}

func TestMergeDeltas(t *testing.T) {
	d := func(data string, seq int) Event {
		return Event{Topic: "t", Kind: KindDelta, Seq: seq, Data: []byte(data)}
	}
	tests := []struct {
		name       string
		prev, next Event
		want       string
		ok         bool
	}{
		{"texts", d(`{"t":"你好"}`, 2), d(`{"t":", <world>"}`, 11), `{"t":"你好, <world>"}`, true},
		{"escapes", d(`{"t":"a\"b\\"}`, 4), d(`{"t":"\n"}`, 5), `{"t":"a\"b\\\n"}`, true},
		{"other fields", d(`{"t":"a","x":1}`, 1), d(`{"t":"b"}`, 2), "", false},
		{"not an object", d(`"a"`, 1), d(`{"t":"b"}`, 2), "", false},
		{"not text", d(`{"t":1}`, 1), d(`{"t":"b"}`, 2), "", false},
		{"other kind", Event{Topic: "t", Kind: "SOURCES", Data: []byte(`{"t":"a"}`)}, d(`{"t":"b"}`, 2), "", false},
		{"a delta missing between them", d(`{"t":"ab"}`, 2), d(`{"t":"d"}`, 4), "", false},
		{"overlapping", d(`{"t":"ab"}`, 2), d(`{"t":"bc"}`, 3), "", false},
		{"plain then escaped", d(`{"t":"ab"}`, 2), d(`{"t":"\u003c"}`, 3), `{"t":"ab<"}`, true},
		{"a second string field", d(`{"t":"a","x":"b"}`, 1), d(`{"t":"b"}`, 2), "", false},
		{"invalid UTF-8 (decoded as JSON does)", d("{\"t\":\"\xff\"}", 1), d(`{"t":"b"}`, 2), "{\"t\":\"\uFFFDb\"}", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := MergeDeltas(tt.prev, tt.next)
			assert.Equal(t, tt.ok, ok)
			if ok {
				assert.Equal(t, tt.want, string(got.Data))
				assert.Equal(t, tt.next.Seq, got.Seq)
				assert.True(t, bytes.Equal([]byte(tt.want), got.Data))
			}
		})
	}
}

// TestMergePlainDeltasAllocatesOnce: two DELTAs as the engine writes them
// (text that needs no escape) merge into one new payload and nothing else.
func TestMergePlainDeltasAllocatesOnce(t *testing.T) {
	prev := Event{Topic: "t", Kind: KindDelta, Seq: 2, Data: []byte(`{"t":"你好"}`)}
	next := Event{Topic: "t", Kind: KindDelta, Seq: 9, Data: []byte(`{"t":", world"}`)}
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := MergeDeltas(prev, next); !ok {
			t.Fatal("not merged")
		}
	})
	if allocs != 1 {
		t.Fatalf("%v allocations per merge, want 1", allocs)
	}
}
