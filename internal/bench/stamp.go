package bench

import (
	"strconv"
	"strings"
	"time"
)

// Stamped tokens: for the lag part the fake model prefixes every chunk it
// streams with the time it sends it, "~<µs since stampEpoch, base 36>~",
// so that whoever receives the text (merged, coalesced or relayed) can tell
// each token's delay without matching requests to attempts. The fake and
// the subscribers run in this process and share the clock.

// stampEpoch is the zero of the stamps (monotonic through time.Since).
var stampEpoch = time.Now()

// stampNow is the current time on the stamps' scale.
func stampNow() time.Duration { return time.Since(stampEpoch) }

// stampChunk is the fake model's chunk rewriter (llmfake.SetChunkText).
func stampChunk(_ int, text string) string {
	return "~" + strconv.FormatInt(stampNow().Microseconds(), 36) + "~" + text
}

// stampReader collects the stamps of one subscriber's stream.
type stampReader struct {
	carry string
	// live is when the subscriber received its first event: tokens
	// emitted from then on were delivered live, not from a backlog or a
	// checkpoint read at subscribe time.
	live    time.Duration
	started bool
	// at is, per stamp (the emit time), when the subscriber received it.
	at   map[time.Duration]time.Duration
	text strings.Builder
}

func newStampReader() *stampReader { return &stampReader{at: map[time.Duration]time.Duration{}} }

// event notes that an event arrived at time at.
func (r *stampReader) event(at time.Duration) {
	if !r.started {
		r.started, r.live = true, at
	}
}

// feed takes the text of a DELTA received at time at.
func (r *stampReader) feed(text string, at time.Duration) {
	r.text.WriteString(text)
	buf := r.carry + text
	for {
		i := strings.IndexByte(buf, '~')
		if i < 0 {
			r.carry = ""
			return
		}
		j := strings.IndexByte(buf[i+1:], '~')
		if j < 0 {
			r.carry = buf[i:] // a stamp split between deltas
			return
		}
		if us, err := strconv.ParseInt(buf[i+1:i+1+j], 36, 64); err == nil {
			emit := time.Duration(us) * time.Microsecond
			if _, seen := r.at[emit]; !seen {
				r.at[emit] = at
			}
		}
		buf = buf[i+2+j:]
	}
}

// delays returns, for every stamp emitted after the stream was live, the
// delay from emission to receipt.
func (r *stampReader) delays() []time.Duration {
	var out []time.Duration
	for emit, at := range r.at {
		if emit >= r.live {
			out = append(out, at-emit)
		}
	}
	return out
}

// pairDelays returns, for every stamp both readers received live, how much
// later b received it than a.
func pairDelays(a, b *stampReader) []time.Duration {
	var out []time.Duration
	for emit, atA := range a.at {
		if atB, ok := b.at[emit]; ok && emit >= a.live && emit >= b.live {
			out = append(out, atB-atA)
		}
	}
	return out
}
