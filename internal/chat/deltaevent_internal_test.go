package chat

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestDeltaDataIsJSONMarshal checks that a DELTA's data is what
// json.Marshal of its payload gives, on the characters encoding/json
// escapes.
func TestDeltaDataIsJSONMarshal(t *testing.T) {
	texts := []string{
		"", "abcd", "超过限制时返回 ERR_FILE_TOO_LARGE [C1]。", `quote " and \ backslash`,
		"<b>&amp;</b>", "line\nnext\r\ttab\b\f", "\x00\x01\x1f\x7f", "bad utf8 \xff\xfe end", "\xe2\x80",
		"sep \u2028 \u2029", "emoji 😀", strings.Repeat("x", 5000), "\u00e9\U0010ffff",
	}
	for c := 0; c < 256; c++ {
		texts = append(texts, string(rune(c)), "a"+string([]byte{byte(c)})+"b")
	}
	for _, text := range texts {
		want, err := json.Marshal(attemptPayload{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		if got := deltaData(text); !bytes.Equal(got, want) {
			t.Fatalf("deltaData(%q) = %s, want %s", text, got, want)
		}
	}
}

// TestDecodeAttemptPayloadIsJSONUnmarshal checks the subscriber's
// decoding against encoding/json on every DELTA above and on payloads the
// fast path must leave to it.
func TestDecodeAttemptPayloadIsJSONUnmarshal(t *testing.T) {
	datas := []string{`{}`, `{"t":"a","q":"b"}`, `{"t":"a"`, `{"t":"a"} `, `{"t":"a"b"}`, `{"t":"\x"}`, `{"t":"\u003c"}`, `{"t":"\n"}`,
		`{"t":"` + "\x01" + `"}`, `{"t":"` + "\xff" + `"}`, `{"t":""}`, `{"t":"<"}`, `{"T":"x"}`, `{"t":"x","t":"y"}`, `null`, ``}
	for c := 0; c < 256; c++ {
		datas = append(datas, string(deltaData("a"+string([]byte{byte(c)})+"b")), `{"t":"`+string([]byte{byte(c)})+`"}`)
	}
	for _, d := range datas {
		var want, got attemptPayload
		wantErr := json.Unmarshal([]byte(d), &want)
		gotErr := decodeAttemptPayload([]byte(d), &got)
		if (wantErr == nil) != (gotErr == nil) || (wantErr == nil && got.Text != want.Text) {
			t.Fatalf("%q: %+v %v, want %+v %v", d, got, gotErr, want, wantErr)
		}
	}
}

// TestDecodeAttemptPayloadAllocations: one allocation (the text) for a
// plain DELTA.
func TestDecodeAttemptPayloadAllocations(t *testing.T) {
	data := deltaData("超过限制 [C1] 返回")
	var p attemptPayload
	allocs := testing.AllocsPerRun(1000, func() { _ = decodeAttemptPayload(data, &p) })
	if allocs > 1 {
		t.Fatalf("%.1f allocations per DELTA, want 1", allocs)
	}
}

// FuzzDeltaData compares deltaData with json.Marshal on any text.
func FuzzDeltaData(f *testing.F) {
	f.Add("abcd")
	f.Add("<\u2028\xff\n")
	f.Fuzz(func(t *testing.T, text string) {
		want, _ := json.Marshal(attemptPayload{Text: text})
		if got := deltaData(text); !bytes.Equal(got, want) {
			t.Fatalf("deltaData(%q) = %s, want %s", text, got, want)
		}
	})
}

// TestDeltaDataAllocations bounds a DELTA's encoding to its one buffer
// when its escapes fit the slack.
func TestDeltaDataAllocations(t *testing.T) {
	allocs := testing.AllocsPerRun(1000, func() { _ = deltaData("超过限制 <C1> \n") })
	if allocs > 1 {
		t.Fatalf("%.1f allocations per DELTA, want 1", allocs)
	}
}
