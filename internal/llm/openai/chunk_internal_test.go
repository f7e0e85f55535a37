package openai

import (
	"encoding/json"
	"reflect"
	"testing"
)

// chunkCases are chunks as providers send them, and shapes the scanner
// must leave to encoding/json.
var chunkCases = []string{
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1764800000,"model":"fake-chat","choices":[{"index":0,"delta":{"content":"abcd"},"finish_reason":null}],"usage":null}`,
	`{"id":"c","model":"gpt-4o-mini","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}`,
	`{"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
	`{"model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":150,"total_tokens":160}}`,
	`{"model":"m","choices":[{"index":1,"delta":{"content":"b"}},{"index":0,"delta":{"content":"a"}}]}`,
	`{"model":"m","choices":[{"index":0,"delta":{"content":"line\nnext \"q\" \u4e2d"}}]}`,
	`{"model":"m","choices":[{"index":0,"delta":{"content":"超过限制时返回"}}]}`,
	` { "model" : "m" , "choices" : [ { "index" : 0 , "delta" : { "content" : "x" } } ] } `,
	`{"Model":"m","CHOICES":[{"Index":0,"Delta":{"Content":"folded"}}]}`,
	`{"model":"m","choices":null}`,
	`{"model":"m","choices":[{"index":0,"delta":null,"finish_reason":null}]}`,
	`{"model":"m","choices":[{"index":0,"delta":{"content":null}}]}`,
	`{"model":"m","choices":[{"index":0,"delta":{"content":"x","tool_calls":[{"index":0,"id":"t","function":{"name":"f","arguments":"{}"}}]}}]}`,
	`{"model":"m","choices":[{"index":0,"logprobs":{"content":[{"token":"a","logprob":-0.25}]},"delta":{"content":"x"}}]}`,
	`{"model":"m","model":"n","choices":[{"index":0,"delta":{"content":"dup"}}]}`,
	`{"model":"m","choices":[{"index":-1,"delta":{"content":"neg"}}]}`,
	`{"model":"m","choices":[{"index":1.5,"delta":{"content":"frac"}}]}`,
	`{"model":"m","choices":[{"index":0,"delta":{"content":"bad utf8 ` + "\xff" + `"}}]}`,
	`{"model":5}`,
	`{"model":"m","choices":[{"index":0,"delta":{"content":"x"}}]} trailing`,
	`{"model":"m","choices":[{"index":0,"delta":{"content":"x"}}]`,
	`{"model":"m",}`,
	`{"model":"m","extra":nul}`,
	`{"model":"m","extra":01}`,
	`{"model":"m","extra":[true,false,null,{"a":[1,2]}]}`,
	`{}`,
	`[]`,
	`null`,
	``,
	`{"model":"m","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":5}]}`,
	`{"model":"m","usage":{"total_tokens":"x"}}`,
}

// checkChunk asserts that decodeChunk, into a chunk that held prev, gives
// what json.Unmarshal into a zero chunk gives, errors included.
func checkChunk(t *testing.T, prev, raw string) {
	t.Helper()
	var want streamChunk
	wantErr := json.Unmarshal([]byte(raw), &want)
	var got streamChunk
	if prev != "" {
		_ = decodeChunk([]byte(prev), &got)
	}
	gotErr := decodeChunk([]byte(raw), &got)
	if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
		t.Fatalf("%s after %s: err %v, want %v", raw, prev, gotErr, wantErr)
	}
	if wantErr == nil && !reflect.DeepEqual(normal(got), normal(want)) {
		t.Fatalf("%s after %s:\n got %+v\nwant %+v", raw, prev, got, want)
	}
}

// normal makes an empty choices slice equal to a nil one: the stream
// reads both as no choices, and decodeChunk keeps the reused slice's
// capacity where encoding/json leaves nil.
func normal(c streamChunk) streamChunk {
	if len(c.Choices) == 0 {
		c.Choices = nil
	}
	return c
}

// TestDecodeChunkMatchesEncodingJSON checks every case, alone and after
// every other one (the chunk's choices and model name are reused).
func TestDecodeChunkMatchesEncodingJSON(t *testing.T) {
	for _, raw := range chunkCases {
		checkChunk(t, "", raw)
		for _, prev := range chunkCases {
			checkChunk(t, prev, raw)
		}
	}
}

// FuzzDecodeChunk compares decodeChunk with encoding/json on any input
// (`go test -fuzz FuzzDecodeChunk ./internal/llm/openai/`).
func FuzzDecodeChunk(f *testing.F) {
	for _, c := range chunkCases {
		f.Add(chunkCases[0], c)
	}
	f.Fuzz(func(t *testing.T, prev, raw string) { checkChunk(t, prev, raw) })
}

// TestDecodeChunkAllocations bounds the allocations per answer chunk to
// the content's string (encoding/json: 12).
func TestDecodeChunkAllocations(t *testing.T) {
	raw := []byte(chunkCases[0])
	var c streamChunk
	allocs := testing.AllocsPerRun(1000, func() {
		if err := decodeChunk(raw, &c); err != nil || c.Choices[0].Delta.Content != "abcd" {
			t.Fatal(err, c)
		}
	})
	if allocs > 1 {
		t.Fatalf("%.1f allocations per chunk, want at most 1", allocs)
	}
}
