package broker

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/jsonenc"
)

// KindDelta is the Kind of the events a Distributed broker may merge and,
// when its outbound queue overflows, drop (see MergeDeltas and
// DistributedOptions).
const KindDelta = "DELTA"

// deltaPayload is the only payload shape MergeDeltas merges: a JSON object
// with one string field "t", the text of the delta.
type deltaPayload struct {
	Text string `json:"t"`
}

// MergeDeltas is the default DistributedOptions.Merge. It merges two
// consecutive DELTA events of one topic whose Data are both JSON objects
// holding exactly one field, the string "t" (the text of the delta, as the
// engine publishes it): the result carries the concatenated text and the
// later event's Seq, so that Seq minus the text's length in code points
// still gives where the text starts. Only contiguous deltas merge (the
// later one starts where the earlier one ends), so a merge can never hide
// a delta lost or dropped between them. Any other pair is not merged.
func MergeDeltas(prev, next Event) (Event, bool) {
	if prev.Kind != KindDelta || next.Kind != KindDelta || prev.Topic != next.Topic {
		return Event{}, false
	}
	if a, ok := plainDelta(prev.Data); ok {
		if b, ok := plainDelta(next.Data); ok {
			if next.Seq-utf8.RuneCount(b) != prev.Seq {
				return Event{}, false
			}
			data := make([]byte, 0, len(deltaHead)+len(a)+len(b)+len(deltaTail))
			data = append(append(append(append(data, deltaHead...), a...), b...), deltaTail...)
			next.Data = data
			return next, true
		}
	}
	a, ok := decodeDelta(prev.Data)
	if !ok {
		return Event{}, false
	}
	b, ok := decodeDelta(next.Data)
	if !ok || next.Seq-utf8.RuneCountInString(b) != prev.Seq {
		return Event{}, false
	}
	data, err := jsonenc.Marshal(deltaPayload{Text: a + b})
	if err != nil {
		return Event{}, false
	}
	next.Data = data
	return next, true
}

// deltaHead and deltaTail enclose the text of a DELTA as the engine
// writes it (json.Marshal of deltaPayload).
const deltaHead, deltaTail = `{"t":"`, `"}`

// plainDelta returns the text of data when data is exactly
// {"t":"<text>"} and the text is valid UTF-8 that JSON writes unescaped
// (no quote, backslash or control character): the common DELTA, which
// MergeDeltas then merges by joining bytes, without decoding and encoding
// JSON (one allocation instead of about thirty).
func plainDelta(data []byte) ([]byte, bool) {
	if len(data) < len(deltaHead)+len(deltaTail) || string(data[:len(deltaHead)]) != deltaHead || string(data[len(data)-len(deltaTail):]) != deltaTail {
		return nil, false
	}
	text := data[len(deltaHead) : len(data)-len(deltaTail)]
	for _, c := range text {
		if c < 0x20 || c == '"' || c == '\\' {
			return nil, false
		}
	}
	return text, utf8.Valid(text)
}

// decodeDelta returns the text of a {"t": "..."} payload and whether data
// has exactly that shape.
func decodeDelta(data []byte) (string, bool) {
	if len(data) < 2 || data[0] != '{' {
		return "", false
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(data, &raw) != nil || len(raw) != 1 {
		return "", false
	}
	t, ok := raw["t"]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(t, &s) != nil {
		return "", false
	}
	return s, true
}
