package broker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/broker"
)

// deltaData is a DELTA payload as the engine publishes it.
func deltaData(text string) []byte {
	b, _ := json.Marshal(map[string]string{"t": text})
	return b
}

// answerDeltas returns n deltas of mixed scripts (ASCII, CJK, emoji) and
// their concatenation.
func answerDeltas(n int) ([]string, string) {
	words := []string{"The ", "answer ", "是", "四十二", " 🚀", "<b>&</b> ", "\"quoted\" ", "é"}
	deltas := make([]string, n)
	for i := range deltas {
		deltas[i] = words[i%len(words)] + fmt.Sprint(i)
	}
	return deltas, strings.Join(deltas, "")
}

// publishAnswer publishes an answer stream on topic: STARTED, one DELTA
// per delta with Seq = the answer length in code points after it, then
// COMPLETED. It returns the final Seq.
func publishAnswer(t testing.TB, b broker.Broker, topic string, deltas []string) int {
	t.Helper()
	publishEv(t, b, broker.Event{Topic: topic, Kind: "STARTED", Data: []byte(`{"q":"why?"}`)})
	seq := publishDeltas(t, b, topic, 0, deltas)
	publishEv(t, b, broker.Event{Topic: topic, Kind: "COMPLETED", Seq: seq})
	return seq
}

// publishDeltas publishes deltas after seq and returns the new seq.
func publishDeltas(t testing.TB, b broker.Broker, topic string, seq int, deltas []string) int {
	t.Helper()
	for _, d := range deltas {
		seq += utf8.RuneCountInString(d)
		publishEv(t, b, broker.Event{Topic: topic, Kind: broker.KindDelta, Seq: seq, Data: deltaData(d)})
	}
	return seq
}

func publishEv(t testing.TB, b broker.Broker, ev broker.Event) broker.Event {
	t.Helper()
	out, err := b.Publish(context.Background(), ev)
	require.NoError(t, err)
	return out
}

// textOf applies the DELTAs among evs as the engine does, requiring each
// to start exactly where the previous one ended, and returns the text and
// the last Seq.
func textOf(t testing.TB, evs []broker.Event) (string, int) {
	t.Helper()
	return textFrom(t, evs, 0)
}

// textFrom is textOf for DELTAs that continue a text of seq code points.
func textFrom(t testing.TB, evs []broker.Event, seq int) (string, int) {
	t.Helper()
	var text strings.Builder
	for _, ev := range evs {
		if ev.Kind != broker.KindDelta {
			continue
		}
		var p struct {
			T string `json:"t"`
		}
		require.NoError(t, json.Unmarshal(ev.Data, &p))
		require.Equal(t, seq, ev.Seq-utf8.RuneCountInString(p.T), "a delta must start where the previous one ended")
		text.WriteString(p.T)
		seq = ev.Seq
	}
	return text.String(), seq
}

func kinds(evs []broker.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Kind
	}
	return out
}

// requireStream checks that evs is one whole answer: STARTED, contiguous
// DELTAs giving want and its final seq, COMPLETED last.
func requireStream(t testing.TB, evs []broker.Event, want string, seq int) {
	t.Helper()
	require.NotEmpty(t, evs)
	ks := kinds(evs)
	assert.Equal(t, "STARTED", ks[0])
	assert.Equal(t, "COMPLETED", ks[len(ks)-1])
	for _, k := range ks[1 : len(ks)-1] {
		assert.Equal(t, broker.KindDelta, k)
	}
	text, last := textOf(t, evs)
	assert.Equal(t, want, text)
	assert.Equal(t, seq, last)
	assert.Equal(t, seq, evs[len(evs)-1].Seq)
}

// TestCrossInstanceStreamArrivesInOrder publishes an answer on A and
// follows it on B and C: every event arrives, in order, with the exact
// text and final Seq (DELTAs may arrive merged). A late subscriber on B
// gets a complete backlog, and Retire reaches B and C.
func TestCrossInstanceStreamArrivesInOrder(t *testing.T) {
	forEachBus(t, false, func(t *testing.T, bus *testBus) {
		baseline := runtimeGoroutines()
		conns := bus.conns()
		a := bus.connect(t, broker.Options{Instance: "a"})
		b := bus.connect(t, broker.Options{Instance: "b"})
		c := bus.connect(t, broker.Options{Instance: "c"})
		const topic = "attempt:1"

		onB, onC := subscribe(t, b, topic), subscribe(t, c, topic)
		for _, s := range []*broker.Subscription{onB, onC} {
			backlog, complete := s.Backlog()
			assert.Empty(t, backlog)
			assert.False(t, complete, "a topic this instance has not heard of may have started elsewhere")
		}

		deltas, text := answerDeltas(300)
		seq := publishAnswer(t, a, topic, deltas)
		a.Retire(topic)
		for _, s := range []*broker.Subscription{onB, onC} {
			requireStream(t, until(t, s, "COMPLETED"), text, seq)
		}

		late := subscribe(t, b, topic)
		backlog, complete := late.Backlog()
		assert.True(t, complete, "B heard the topic from its first event")
		requireStream(t, backlog, text, seq)
		onA := subscribe(t, a, topic)
		backlog, complete = onA.Backlog()
		assert.True(t, complete)
		assert.Len(t, backlog, len(deltas)+2, "the publisher keeps every event")

		for _, x := range []*broker.Distributed{b, c} {
			eventually(t, func() bool { return x.Stats().Retired == 1 }, "Retire reaches %s", x.Origin())
		}
		st := a.Stats()
		assert.Zero(t, st.Dropped+st.DroppedPriority+st.SendErrors)
		assert.Zero(t, b.Stats().Gaps+b.Stats().Resets)

		for _, x := range []*broker.Distributed{a, b, c} {
			require.NoError(t, x.Close())
		}
		assert.ErrorIs(t, late.Err(), broker.ErrClosed)
		waitGoroutines(t, baseline)
		eventually(t, func() bool { return bus.conns() <= conns }, "connections return to baseline")
	})
}

// TestBacklogCompletenessAcrossInstances checks the complete flag of
// backlogs fed by another instance.
func TestBacklogCompletenessAcrossInstances(t *testing.T) {
	forEachBus(t, false, func(t *testing.T, bus *testBus) {
		a := bus.connect(t, broker.Options{Instance: "a"})
		b := bus.connect(t, broker.Options{Instance: "b"})
		const topic = "attempt:2"

		publishEv(t, a, broker.Event{Topic: topic, Kind: "STARTED"})
		seq := publishDeltas(t, a, topic, 0, []string{"Hel", "lo"})
		var fromStart *broker.Subscription
		eventually(t, func() bool {
			if fromStart != nil {
				fromStart.Close()
			}
			fromStart = subscribe(t, b, topic)
			backlog, _ := fromStart.Backlog()
			text, _ := textOf(t, backlog)
			return text == "Hello"
		}, "B receives the stream's start")
		backlog, complete := fromStart.Backlog()
		assert.True(t, complete, "B heard the topic from its first event")
		assert.Equal(t, "STARTED", backlog[0].Kind)

		// C joins midway.
		c := bus.connect(t, broker.Options{Instance: "c"})
		midway := subscribe(t, c, topic)
		backlog, complete = midway.Backlog()
		assert.Empty(t, backlog)
		assert.False(t, complete)

		seq = publishDeltas(t, a, topic, seq, []string{" world"})
		for _, s := range []*broker.Subscription{fromStart, midway} {
			ev := next(t, s)
			assert.Equal(t, seq, ev.Seq)
			requireLive(t, s)
		}
		later := subscribe(t, c, topic)
		backlog, complete = later.Backlog()
		assert.Len(t, backlog, 1)
		assert.False(t, complete, "C never saw the stream's start")
		assert.Zero(t, c.Stats().Gaps, "a subscriber told the backlog was incomplete is not ended")
	})
}

// TestSyncedTopicEndsWhenAnotherInstanceTurnsOutAhead: C starts a topic
// itself (so its backlog looks complete), then learns that A had
// published to it before C was there. C's subscribers, promised every
// event, end with ErrLagged and later ones get an incomplete backlog.
func TestSyncedTopicEndsWhenAnotherInstanceTurnsOutAhead(t *testing.T) {
	forEachBus(t, false, func(t *testing.T, bus *testBus) {
		a := bus.connect(t, broker.Options{Instance: "a"})
		const topic = "conversation:1"
		publishEv(t, a, broker.Event{Topic: topic, Kind: "MESSAGE"})
		eventually(t, func() bool { return a.Stats().Sent >= 1 }, "A sent its first event")

		c := bus.connect(t, broker.Options{Instance: "c"})
		publishEv(t, c, broker.Event{Topic: topic, Kind: "MESSAGE"})
		s := subscribe(t, c, topic)
		_, complete := s.Backlog()
		assert.True(t, complete, "as far as C knows")

		publishEv(t, a, broker.Event{Topic: topic, Kind: "ATTEMPT"})
		requireDone(t, s)
		assert.ErrorIs(t, s.Err(), broker.ErrLagged)
		again := subscribe(t, c, topic)
		backlog, complete := again.Backlog()
		assert.False(t, complete)
		assert.Equal(t, []string{"MESSAGE", "ATTEMPT"}, kinds(backlog))
		eventually(t, func() bool { return c.Stats().Gaps == 1 }, "C counts the gap")
	})
}

// TestDeltasMergeWithExactTextAndSeq holds A's sender while an answer is
// published, so that the DELTAs queue up: they reach B as one DELTA with
// the whole text and the last Seq.
func TestDeltasMergeWithExactTextAndSeq(t *testing.T) {
	forEachBus(t, false, func(t *testing.T, bus *testBus) {
		a := bus.connect(t, broker.Options{Instance: "a"})
		b := bus.connect(t, broker.Options{Instance: "b"})
		const topic = "attempt:3"
		onB := subscribe(t, b, topic)

		release := broker.HoldSender(a)
		deltas, text := answerDeltas(200)
		seq := publishAnswer(t, a, topic, deltas)
		assert.Equal(t, 3, a.Stats().Queued, "STARTED, one merged DELTA, COMPLETED")
		release()

		evs := until(t, onB, "COMPLETED")
		assert.Equal(t, []string{"STARTED", "DELTA", "COMPLETED"}, kinds(evs))
		requireStream(t, evs, text, seq)
		assert.Equal(t, uint64(len(deltas)-1), a.Stats().Merged)
	})
}

// TestMergingStopsAtMergeLimitAndNonDeltas: merged payloads stay under
// MaxMergeBytes, and only consecutive DELTAs of one topic merge.
func TestMergingStopsAtMergeLimitAndNonDeltas(t *testing.T) {
	forEachBus(t, false, func(t *testing.T, bus *testBus) {
		a := bus.connect(t, broker.Options{Instance: "a", MaxMergeBytes: 100})
		b := bus.connect(t, broker.Options{Instance: "b"})
		onB1, onB2 := subscribe(t, b, "attempt:x"), subscribe(t, b, "attempt:y")

		release := broker.HoldSender(a)
		deltas := make([]string, 40)
		for i := range deltas {
			deltas[i] = "0123456789"
		}
		// x: 40 deltas of 16-byte payloads, merged in runs under 100 bytes;
		// y: a SOURCES event between two runs keeps them apart.
		seqX := publishAnswer(t, a, "attempt:x", deltas)
		publishEv(t, a, broker.Event{Topic: "attempt:y", Kind: "STARTED"})
		seqY := publishDeltas(t, a, "attempt:y", 0, []string{"a", "b"})
		publishEv(t, a, broker.Event{Topic: "attempt:y", Kind: "SOURCES", Seq: seqY, Data: []byte(`{"s":[]}`)})
		seqY = publishDeltas(t, a, "attempt:y", seqY, []string{"c", "d"})
		publishEv(t, a, broker.Event{Topic: "attempt:y", Kind: "COMPLETED", Seq: seqY})
		release()

		evsX := until(t, onB1, "COMPLETED")
		requireStream(t, evsX, strings.Repeat("0123456789", 40), seqX)
		for _, ev := range evsX {
			assert.LessOrEqual(t, len(ev.Data), 100)
		}
		assert.Greater(t, len(evsX), 2+1, "the merge limit splits the run")
		evsY := until(t, onB2, "COMPLETED")
		assert.Equal(t, []string{"STARTED", "DELTA", "SOURCES", "DELTA", "COMPLETED"}, kinds(evsY))
		text, last := textOf(t, evsY)
		assert.Equal(t, "abcd", text)
		assert.Equal(t, seqY, last)
	})
}

// TestRetireRelaysAndExpiresRemotely: A's Retire retires the topic on B,
// whose grace period then runs on B's own clock.
func TestRetireRelaysAndExpiresRemotely(t *testing.T) {
	forEachBus(t, false, func(t *testing.T, bus *testBus) {
		clock := newFakeClock()
		a := bus.connect(t, broker.Options{Instance: "a"})
		b := bus.connect(t, broker.Options{Instance: "b", Memory: broker.MemoryOptions{Now: clock.Now, JanitorInterval: -1}})
		const topic = "attempt:4"
		onB := subscribe(t, b, topic)
		publishAnswer(t, a, topic, []string{"ok"})
		until(t, onB, "COMPLETED")
		a.Retire(topic)
		eventually(t, func() bool { return b.Stats().Retired == 1 }, "the retirement reaches B")
		requireLive(t, onB)

		clock.Advance(broker.DefaultRetireAfter)
		subscribe(t, b, topic).Close() // forgets the expired topic lazily
		requireDone(t, onB)
		assert.ErrorIs(t, onB.Err(), broker.ErrExpired)
	})
}

// TestLargeEventsArriveIntact sends events far above NOTIFY's 8000-byte
// limit (a long question, SOURCES with long snippets) and payloads that
// are not compact JSON: they arrive byte for byte.
func TestLargeEventsArriveIntact(t *testing.T) {
	forEachBus(t, false, func(t *testing.T, bus *testBus) {
		a := bus.connect(t, broker.Options{Instance: "a"})
		b := bus.connect(t, broker.Options{Instance: "b"})
		const topic = "attempt:5"
		onB := subscribe(t, b, topic)

		question, _ := json.Marshal(map[string]string{"q": strings.Repeat("为什么天空是蓝色的？🌤 Why <is> the sky blue? ", 250)})
		type source struct {
			ID      int    `json:"id"`
			Snippet string `json:"sn"`
		}
		var sources []source
		for i := range 12 {
			sources = append(sources, source{i, strings.Repeat(fmt.Sprintf("片段 %d — snippet \\ \"quoted\" ", i), 100)})
		}
		sourcesData, _ := json.Marshal(map[string]any{"s": sources})
		require.Greater(t, len(question), 8000)
		require.Greater(t, len(sourcesData), 30000)
		sent := []broker.Event{
			{Topic: topic, Kind: "STARTED", Data: question},
			{Topic: topic, Kind: "SOURCES", Data: sourcesData},
			{Topic: topic, Kind: "NOTE", Data: []byte("{ \"spaced\" : true }")},
			{Topic: topic, Kind: "NOTE", Data: []byte("plain text, not JSON")},
			{Topic: topic, Kind: "NOTE", Data: []byte{0xff, 0x00, 0xfe, '{'}},
			{Topic: topic, Kind: "COMPLETED", Seq: 0},
		}
		for _, ev := range sent {
			publishEv(t, a, ev)
		}
		got := until(t, onB, "COMPLETED")
		require.Len(t, got, len(sent))
		for i, ev := range got {
			assert.Equal(t, sent[i].Kind, ev.Kind)
			assert.Equal(t, sent[i].Data, ev.Data, "event %d (%s) arrives byte for byte", i, ev.Kind)
		}
		eventually(t, func() bool { return a.Stats().Sent == uint64(len(sent)) }, "A counts what it sent")
		st := a.Stats()
		assert.Zero(t, st.SendErrors, "every payload fits the bus")
		if bus.name == "postgres" {
			assert.GreaterOrEqual(t, st.Frames, uint64(6), "large batches are split into several NOTIFY payloads")
		}
		assert.Zero(t, b.Stats().BadFrames+b.Stats().Gaps)
	})
}

// TestCloseSendsWhatIsQueued: events still queued when an instance shuts
// down are sent before it disconnects.
func TestCloseSendsWhatIsQueued(t *testing.T) {
	forEachBus(t, false, func(t *testing.T, bus *testBus) {
		a := bus.connect(t, broker.Options{Instance: "a"})
		b := bus.connect(t, broker.Options{Instance: "b"})
		const topic = "attempt:6"
		onB := subscribe(t, b, topic)
		broker.HoldSender(a) // never released: only Close sends
		seq := publishAnswer(t, a, topic, []string{"last ", "words"})
		a.Retire(topic)
		require.NoError(t, a.Close())
		requireStream(t, until(t, onB, "COMPLETED"), "last words", seq)
		eventually(t, func() bool { return b.Stats().Retired == 1 }, "the retirement reaches B")
		_, err := a.Publish(context.Background(), broker.Event{Topic: topic, Kind: "DELTA"})
		assert.ErrorIs(t, err, broker.ErrClosed)
	})
}
