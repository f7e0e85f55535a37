package broker_test

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/broker"
)

// These tests put someone else on the bus: on PostgreSQL a separate login
// role of the same database (LISTEN and NOTIFY need no privilege), on NATS
// another client. It must read nothing of the streams, and nothing it puts
// on the bus may reach a subscriber.

// forgedBatch is the rcb1 frame (the unsealed format of frame.go, which
// receivers took as it came before frames were sealed) of a batch that
// injects SOURCES, DELTA and COMPLETED into topic, from a made-up origin.
func forgedBatch(topic string) []byte {
	evs, _ := json.Marshal([]map[string]any{
		{"t": topic, "k": "SOURCES", "f": 1, "d": map[string]any{"s": []map[string]any{{"id": 1, "sn": "forged snippet"}}}},
		{"t": topic, "k": broker.KindDelta, "q": 6, "f": 2, "d": map[string]string{"t": "forged"}},
		{"t": topic, "k": "COMPLETED", "q": 6, "f": 3},
	})
	return append([]byte("rcb1 mallory-000000000001 1 1 1\n"), evs...)
}

// TestForgedFramesNeverReachSubscribers: frames the intruder forges (the
// unsealed format, random bytes after the sealed format's magic), tampers
// with (a sealed frame with one byte changed) or replays (a sealed frame
// it captured, sent again) are dropped; the forgeries and tampering are
// counted. B's subscriber sees only A's events, each once.
func TestForgedFramesNeverReachSubscribers(t *testing.T) {
	forEachBus(t, false, func(t *testing.T, bus *testBus) {
		a := bus.connect(t, broker.Options{Instance: "a"})
		b := bus.connect(t, broker.Options{Instance: "b"})
		spy := bus.intrude(t)
		const topic = "attempt:forged"
		onB := subscribe(t, b, topic)
		publishEv(t, a, broker.Event{Topic: topic, Kind: "STARTED", Data: []byte(`{"q":"why?"}`)})
		require.Equal(t, "STARTED", next(t, onB).Kind)
		genuine := spy.captured(t, 1)[0]

		random := make([]byte, 300)
		_, _ = rand.Read(random)
		tampered := bytes.Clone(bus.unwire(genuine))
		require.NotEmpty(t, tampered)
		tampered[len(tampered)-20] ^= 1
		forgeries := [][]byte{
			forgedBatch(topic),           // the unsealed format, as it is
			bus.wire(forgedBatch(topic)), // the same, encoded as the bus carries sealed frames
			bus.wire(append([]byte("rcb2"), random...)),
			bus.wire(tampered),
		}
		spy.send(t, genuine) // a replay: ignored, not counted
		for _, f := range forgeries {
			spy.send(t, f)
		}
		// Every payload of one sender reaches B in order: once the last
		// forgery is counted, the replay was handled too.
		eventually(t, func() bool { return b.Stats().RejectedFrames == uint64(len(forgeries)) },
			"B rejects the %d forgeries", len(forgeries))

		publishEv(t, a, broker.Event{Topic: topic, Kind: "COMPLETED"})
		got := next(t, onB)
		assert.Equal(t, "COMPLETED", got.Kind, "nothing the intruder sent came before A's next event")
		assert.Empty(t, onB.C())
		st := b.Stats()
		assert.Equal(t, uint64(2), st.Received, "B took A's two events and nothing else")
		assert.Zero(t, st.Gaps+st.Resets+st.BadFrames, "forgeries cause no resync either")
		assert.Equal(t, uint64(len(forgeries)), st.RejectedFrames)
	})
}

// TestListenerSeesNoPlaintext: what the intruder sees on the bus holds
// none of the stream: no question, answer text, snippet, topic, event kind
// or instance name, in the payloads or in what they decode to.
func TestListenerSeesNoPlaintext(t *testing.T) {
	forEachBus(t, false, func(t *testing.T, bus *testBus) {
		a := bus.connect(t, broker.Options{Instance: "replica-a"})
		b := bus.connect(t, broker.Options{Instance: "replica-b"})
		spy := bus.intrude(t)
		const topic = "attempt:0b4c6a52-secret-topic"
		secrets := []string{
			"Which VPN devices may I register", "每个账户最多注册三台设备", "confidential snippet of the policy",
			topic, "SOURCES", broker.KindDelta, "COMPLETED", "replica-a",
		}
		onB := subscribe(t, b, topic)
		question, _ := json.Marshal(map[string]string{"q": secrets[0]})
		sources, _ := json.Marshal(map[string]any{"s": []map[string]string{{"sn": secrets[2]}}})
		publishEv(t, a, broker.Event{Topic: topic, Kind: "STARTED", Data: question})
		publishEv(t, a, broker.Event{Topic: topic, Kind: "SOURCES", Data: sources})
		publishEv(t, a, broker.Event{Topic: topic, Kind: broker.KindDelta, Seq: 12, Data: deltaData(secrets[1])})
		publishEv(t, a, broker.Event{Topic: topic, Kind: "COMPLETED", Seq: 12})
		got := until(t, onB, "COMPLETED")
		require.Len(t, got, 4, "B reads the stream")
		assert.Equal(t, sources, got[1].Data)

		eventually(t, func() bool { return a.Stats().Queued == 0 && a.Stats().Frames > 0 }, "A sent everything")
		payloads := spy.captured(t, int(a.Stats().Frames))
		for i, p := range payloads {
			for _, view := range [][]byte{p, bus.unwire(p)} {
				for _, s := range secrets {
					assert.NotContains(t, string(view), s, "payload %d", i)
				}
			}
		}
	})
}

// TestReplicasWithDifferentSecretsIgnoreEachOther: instances whose
// secrets differ do not take each other's frames (each counts the other's
// as rejected), while instances sharing a secret do; an instance that
// lists the other secret as a previous one (a rotation) takes both.
func TestReplicasWithDifferentSecretsIgnoreEachOther(t *testing.T) {
	forEachBus(t, false, func(t *testing.T, bus *testBus) {
		other := []byte("another deployment's broker secret, 32+ bytes")
		a := bus.connect(t, broker.Options{Instance: "a"})
		c := bus.connect(t, broker.Options{Instance: "c"})
		x := bus.connect(t, broker.Options{Instance: "x", Secret: other})
		r := bus.connect(t, broker.Options{Instance: "r", Secret: other, PreviousSecrets: [][]byte{testSecret}})
		const fromA, fromX = "attempt:from-a", "attempt:from-x"
		onC, onX, onR := subscribe(t, c, fromA), subscribe(t, x, fromA), subscribe(t, r, fromA)
		onA, onC2, onR2 := subscribe(t, a, fromX), subscribe(t, c, fromX), subscribe(t, r, fromX)

		seqA := publishAnswer(t, a, fromA, []string{"shared ", "secret"})
		seqX := publishAnswer(t, x, fromX, []string{"other ", "secret"})
		// C shares A's secret; R has it as a previous one.
		requireStream(t, until(t, onC, "COMPLETED"), "shared secret", seqA)
		requireStream(t, until(t, onR, "COMPLETED"), "shared secret", seqA)
		requireStream(t, until(t, onR2, "COMPLETED"), "other secret", seqX) // R and X share the current one

		eventually(t, func() bool { return a.Stats().Queued+x.Stats().Queued == 0 }, "A and X sent everything")
		eventually(t, func() bool { return x.Stats().RejectedFrames >= a.Stats().Frames },
			"X rejects every frame of A")
		eventually(t, func() bool {
			return a.Stats().RejectedFrames >= x.Stats().Frames && c.Stats().RejectedFrames >= x.Stats().Frames
		}, "A and C reject every frame of X")
		for _, s := range []*broker.Subscription{onX, onA, onC2} {
			assert.Empty(t, s.C(), "no event crosses between secrets (%s)", s.Topic())
			requireLive(t, s)
		}
		assert.Zero(t, x.Stats().Received)
	})
}
