package broker

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/jsonenc"
)

// The wire format of a Distributed broker's bus.
//
// The sender encodes each batch of queued items as one JSON array of
// wireEvent and cuts it into frames of at most the bus's frame size (7,000
// bytes for PostgreSQL NOTIFY, whose payload limit is 8,000 bytes), always
// between two UTF-8 code points. Each frame is a text line of header and
// then its piece of the batch:
//
//	rcb1 <origin> <frame seq> <part> <parts>\n<piece of the JSON batch>
//
// The origin names the sending process; the frame seq numbers its frames
// 1, 2, 3…, so that a receiver detects lost frames (a gap) and ignores
// repeated ones (a send that was retried after it had in fact succeeded).
// The parts of one batch have consecutive seqs and are sent in one NOTIFY
// transaction (or in order on one NATS connection); the receiver joins them
// and decodes the batch when the last one arrives.
const frameMagic = "rcb1"

// Wire operations.
const (
	wireOpEvent  = ""  // an event
	wireOpRetire = "r" // Retire(topic)
	wireOpLost   = "x" // the origin dropped the topic's events up to Last
)

// wireEvent is one item of a batch.
type wireEvent struct {
	Op    string `json:"op,omitempty"`
	Topic string `json:"t"`
	Kind  string `json:"k,omitempty"`
	Seq   int    `json:"q,omitempty"`
	// First and Last are the origin offsets the event covers (Last is
	// omitted when equal to First).
	First int64 `json:"f,omitempty"`
	Last  int64 `json:"l,omitempty"`
	// Data travels as it is when it is compact JSON (the usual case),
	// otherwise as a JSON string when it is UTF-8, otherwise as base64.
	Data json.RawMessage `json:"d,omitempty"`
	Str  *string         `json:"s,omitempty"`
	Bin  []byte          `json:"b,omitempty"`
}

// frameHeader is the parsed header of a frame.
type frameHeader struct {
	origin      string
	seq         uint64
	part, parts int
}

// encodeBatch encodes queued items and lost markers as one JSON batch.
func encodeBatch(items []*outItem, lost map[string]int64) ([]byte, error) {
	out := make([]wireEvent, 0, len(items)+len(lost))
	for _, it := range items {
		w := wireEvent{Topic: it.ev.Topic}
		switch it.op {
		case opRetire:
			w.Op = wireOpRetire
		default:
			w.Kind, w.Seq, w.First = it.ev.Kind, it.ev.Seq, it.first
			if it.last != it.first {
				w.Last = it.last
			}
			setWireData(&w, it.ev.Data)
		}
		out = append(out, w)
	}
	for topic, last := range lost {
		out = append(out, wireEvent{Op: wireOpLost, Topic: topic, Last: last})
	}
	return jsonenc.Marshal(out)
}

// setWireData stores data in the field that carries it unchanged.
func setWireData(w *wireEvent, data []byte) {
	if len(data) == 0 {
		return
	}
	if utf8.Valid(data) {
		var buf bytes.Buffer
		if json.Compact(&buf, data) == nil && bytes.Equal(buf.Bytes(), data) {
			w.Data = data
			return
		}
		s := string(data)
		w.Str = &s
		return
	}
	w.Bin = data
}

// data returns the event payload a wireEvent carries.
func (w *wireEvent) data() []byte {
	switch {
	case w.Data != nil:
		return w.Data
	case w.Str != nil:
		return []byte(*w.Str)
	default:
		return w.Bin
	}
}

// splitFrames cuts a batch into frames of at most maxFrame bytes, numbered
// from *seq+1 on, and advances *seq.
func splitFrames(origin string, seq *uint64, body []byte, maxFrame int) ([][]byte, error) {
	room := maxFrame - frameHeaderRoom(origin)
	if room < 64 {
		return nil, errors.New("broker: frame size too small")
	}
	var cuts []int // end of each part
	for start := 0; start < len(body) || len(cuts) == 0; {
		end := min(start+room, len(body))
		for end < len(body) && end > start && !utf8.RuneStart(body[end]) {
			end--
		}
		cuts = append(cuts, end)
		start = end
	}
	frames := make([][]byte, len(cuts))
	start := 0
	for i, end := range cuts {
		*seq++
		h := frameHeader{origin: origin, seq: *seq, part: i + 1, parts: len(cuts)}
		frames[i] = append(h.appendTo(make([]byte, 0, frameHeaderRoom(origin)+end-start)), body[start:end]...)
		start = end
	}
	return frames, nil
}

// frameHeaderRoom bounds the length of a frame header of origin.
func frameHeaderRoom(origin string) int {
	return len(frameMagic) + len(origin) + 3*20 + 4
}

func (h frameHeader) appendTo(b []byte) []byte {
	b = append(b, frameMagic...)
	b = append(b, ' ')
	b = append(b, h.origin...)
	b = append(b, ' ')
	b = strconv.AppendUint(b, h.seq, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(h.part), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(h.parts), 10)
	return append(b, '\n')
}

// parseFrame splits a frame into its header and body.
func parseFrame(b []byte) (frameHeader, []byte, bool) {
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		return frameHeader{}, nil, false
	}
	f := bytes.Fields(b[:nl])
	if len(f) != 5 || string(f[0]) != frameMagic {
		return frameHeader{}, nil, false
	}
	seq, err1 := strconv.ParseUint(string(f[2]), 10, 64)
	part, err2 := strconv.Atoi(string(f[3]))
	parts, err3 := strconv.Atoi(string(f[4]))
	if err1 != nil || err2 != nil || err3 != nil || part < 1 || part > parts {
		return frameHeader{}, nil, false
	}
	return frameHeader{origin: string(f[1]), seq: seq, part: part, parts: parts}, b[nl+1:], true
}
