package broker

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/jsonenc"
)

// TestReceiverAuthenticatesFrames feeds a receiver one genuine frame and
// then one variant of it per case: only frames sealed with the deployment's
// key for this channel, within the replay window and not taken before
// reach the subscriber.
func TestReceiverAuthenticatesFrames(t *testing.T) {
	other := []byte("another deployment's broker secret, 32+ bytes")
	otherChannel, err := newSealer(testSecret, nil, "test", "other channel")
	require.NoError(t, err)
	otherSecret, err := newSealer(other, nil, "test", "ch")
	require.NoError(t, err)

	// first is the genuine frame (seq 1) the receiver takes first; second
	// is the inner frame (seq 2) the case sends next, or resends first.
	tests := []struct {
		name string
		// previous is the receiver's previous secret (a rotation).
		previous []byte
		// send returns what the case puts on the bus after first.
		send         func(h *rxHarness, first []byte, second []byte) []byte
		wantDelivery bool
		wantRejected bool
	}{
		{"the next frame", nil, func(h *rxHarness, _, second []byte) []byte {
			return h.seal.seal(second, h.rx.now())
		}, true, false},
		{"a replay", nil, func(_ *rxHarness, first, _ []byte) []byte { return first }, false, false},
		{"a replay after a reset", nil, func(h *rxHarness, first, _ []byte) []byte {
			h.rx.reset("test")
			return first
		}, false, false},
		{"a taken frame sent again after a reset (a retried send)", nil, func(h *rxHarness, _, _ []byte) []byte {
			h.rx.reset("test")
			return h.seal.seal(h.inner(1), h.rx.now()) // seq 1 again
		}, false, false},
		{"sent before the replay window", nil, func(h *rxHarness, _, second []byte) []byte {
			return h.seal.seal(second, h.rx.now().Add(-DefaultMaxFrameAge-time.Second))
		}, false, true},
		{"sent after the replay window", nil, func(h *rxHarness, _, second []byte) []byte {
			return h.seal.seal(second, h.rx.now().Add(DefaultMaxFrameAge+time.Second))
		}, false, true},
		{"tampered", nil, func(h *rxHarness, _, second []byte) []byte {
			f := h.seal.seal(second, h.rx.now())
			f[len(f)-1] ^= 0x80
			return f
		}, false, true},
		{"unsealed", nil, func(_ *rxHarness, _, second []byte) []byte { return second }, false, true},
		{"truncated", nil, func(h *rxHarness, _, second []byte) []byte {
			return h.seal.seal(second, h.rx.now())[:sealOverhead-1]
		}, false, true},
		{"sealed for another channel", nil, func(h *rxHarness, _, second []byte) []byte {
			return otherChannel.seal(second, h.rx.now())
		}, false, true},
		{"sealed with another secret", nil, func(h *rxHarness, _, second []byte) []byte {
			return otherSecret.seal(second, h.rx.now())
		}, false, true},
		{"sealed with the previous secret of a rotation", other, func(h *rxHarness, _, second []byte) []byte {
			return otherSecret.seal(second, h.rx.now())
		}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRxHarness(t)
			if tt.previous != nil {
				var err error
				h.rx.seal, err = newSealer(testSecret, [][]byte{tt.previous}, "test", "ch")
				require.NoError(t, err)
			}
			s := h.sub("t")
			first := h.seal.seal(h.inner(1), h.rx.now())
			h.rx.frame(first)
			require.Equal(t, "E1", (<-s.C()).Kind)

			h.rx.frame(tt.send(h, first, h.inner(2)))
			// What the topic holds (a reset ends s: ask a new subscription).
			backlog, _ := h.sub("t").Backlog()
			want := []string{"E1"}
			if tt.wantDelivery {
				want = append(want, "E2")
			}
			var got []string
			for _, e := range backlog {
				got = append(got, e.Kind)
			}
			assert.Equal(t, want, got)
			wantRejected := uint64(0)
			if tt.wantRejected {
				wantRejected = 1
			}
			assert.Equal(t, wantRejected, h.stats.rejected.Load())
			assert.Zero(t, h.stats.badFrames.Load())
		})
	}
}

// inner returns origin "o"'s inner frame seq, carrying event "E<seq>" of
// topic "t" at origin offset seq.
func (h *rxHarness) inner(seq uint64) []byte {
	h.t.Helper()
	body, err := jsonenc.Marshal([]wireEvent{ev("t", fmt.Sprint("E", seq), int64(seq), 0)})
	require.NoError(h.t, err)
	prev := seq - 1
	frames, err := splitFrames("o", &prev, body, 7000)
	require.NoError(h.t, err)
	return frames[0]
}

// TestReceiverForgetsStoppedOrigins: an origin not heard from for longer
// than any of its frames can be accepted is forgotten, and its frames
// cannot be replayed afterwards.
func TestReceiverForgetsStoppedOrigins(t *testing.T) {
	h := newRxHarness(t)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h.rx.now = func() time.Time { return now }
	s := h.sub("t")
	first := h.seal.seal(h.inner(1), now)
	h.rx.frame(first)
	require.Equal(t, "E1", (<-s.C()).Kind)

	now = now.Add(h.rx.originMemory() + time.Second)
	other := h.seal.seal([]byte("rcb1 p 1 1 1\n[]"), now) // any frame makes the receiver prune
	h.rx.frame(other)
	h.rx.mu.Lock()
	_, known := h.rx.origins["o"]
	h.rx.mu.Unlock()
	assert.False(t, known, "a stopped origin is forgotten")
	h.rx.frame(first)
	backlog, _ := h.sub("t").Backlog()
	assert.Len(t, backlog, 1, "the replay is not taken")
	assert.NoError(t, ended(s))
	assert.Equal(t, uint64(1), h.stats.rejected.Load(), "its old frames are outside the replay window")
}

// TestSealedFramesFitTheBus: sealing adds exactly sealOverhead bytes, and
// the largest frame a PostgreSQL bus cuts fits a NOTIFY payload of its
// size once in base64.
func TestSealedFramesFitTheBus(t *testing.T) {
	s := testSealer(t)
	for _, n := range []int{0, 1, 100, 5000} {
		assert.Len(t, s.seal(make([]byte, n), time.Now()), n+sealOverhead)
	}
	bus := &postgresBus{payload: DefaultNotifyPayload}
	var seq uint64
	body := []byte(`[{"t":"` + strings.Repeat("天", 9000) + `"}]`)
	frames, err := splitFrames("replica-1", &seq, body, bus.maxFrame()-sealOverhead)
	require.NoError(t, err)
	require.Greater(t, len(frames), 3)
	for _, f := range frames {
		payload := base64.StdEncoding.EncodeToString(s.seal(f, time.Now()))
		assert.LessOrEqual(t, len(payload), DefaultNotifyPayload)
	}
	_, err = newSealer([]byte("short"), nil, "test", "ch")
	assert.ErrorIs(t, err, ErrNoSecret)
	_, err = newSealer(testSecret, [][]byte{[]byte("short")}, "test", "ch")
	assert.Error(t, err, "a short previous secret")
}

// BenchmarkSeal measures what sealing costs per frame: seal on the sender,
// open on each receiver, and for PostgreSQL the base64 both ways, for a
// small batch (a few DELTAs), a medium one and the largest frame a
// PostgreSQL bus cuts.
//
//	go test ./internal/broker -run '^$' -bench Seal -benchmem
func BenchmarkSeal(b *testing.B) {
	s := testSealer(b)
	for _, size := range []int{200, 1000, (&postgresBus{payload: DefaultNotifyPayload}).maxFrame() - sealOverhead} {
		inner := []byte(strings.Repeat("x", size))
		sealed := s.seal(inner, time.Now())
		b.Run(fmt.Sprintf("seal/bytes=%d", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				s.seal(inner, time.Now())
			}
		})
		b.Run(fmt.Sprintf("open/bytes=%d", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := s.open(sealed); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("postgres-roundtrip/bytes=%d", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				payload := base64.StdEncoding.EncodeToString(s.seal(inner, time.Now()))
				f, _ := base64.StdEncoding.DecodeString(payload)
				if _, _, err := s.open(f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("rejected-forgery", func(b *testing.B) {
		forged := append([]byte(sealMagic), make([]byte, 1000)...)
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := s.open(forged); err == nil {
				b.Fatal("accepted")
			}
		}
	})
}
