package chat

import (
	"context"
	"encoding/json"
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/broker"
)

// publishDelta publishes a DELTA of an answer's text on topic (the
// attempt's, computed once per answer). It is publishAttempt for the event
// sent every few characters, without its reflection-driven encoding and
// its topic's two allocations per event.
func (e *Engine) publishDelta(ctx context.Context, topic string, seq int, text string) {
	_, err := e.broker.Publish(context.WithoutCancel(ctx), broker.Event{Topic: topic, Kind: string(EventDelta), Seq: seq, Data: deltaData(text)})
	if err != nil {
		e.log.WarnContext(ctx, "publish attempt event", "topic", topic, "kind", EventDelta, "err", err)
	}
}

// deltaData is json.Marshal(attemptPayload{Text: text}), byte for byte
// (TestDeltaDataIsJSONMarshal), in one allocation.
func deltaData(text string) []byte {
	if text == "" {
		return []byte("{}")
	}
	b := make([]byte, 0, len(text)+len(`{"t":""}`)+16) // room for a few escapes
	b = append(b, `{"t":"`...)
	b = appendJSONString(b, text)
	return append(b, `"}`...)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s quoted as encoding/json writes a string (its
// HTML-safe escaping, invalid UTF-8 as U+FFFD, U+2028 and U+2029 escaped),
// without the quotes.
func appendJSONString(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// decodeAttemptPayload is json.Unmarshal(data, p) into a zero payload,
// with a fast path for a DELTA as deltaData writes it when its text needed
// no escape: every subscriber decodes every DELTA.
func decodeAttemptPayload(data []byte, p *attemptPayload) error {
	const head, tail = `{"t":"`, `"}`
	if len(data) >= len(head)+len(tail) && string(data[:len(head)]) == head && string(data[len(data)-len(tail):]) == tail {
		text := data[len(head) : len(data)-len(tail)]
		plain := true
		for _, c := range text {
			if c < 0x20 || c == '"' || c == '\\' {
				plain = false
				break
			}
		}
		if plain && utf8.Valid(text) {
			*p = attemptPayload{Text: string(text)}
			return nil
		}
	}
	return json.Unmarshal(data, p)
}
