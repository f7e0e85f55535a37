package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"
)

// benchBody is a streamed answer as the fake model sends it: chunks of
// four characters, then the usage chunk and [DONE].
func benchBody(chunks int) string {
	var b strings.Builder
	for range chunks {
		b.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1764800000,"model":"fake-chat","choices":[{"index":0,"delta":{"content":"abcd"},"finish_reason":null}],"usage":null}` + "\n\n")
	}
	b.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1764800000,"model":"fake-chat","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":150,"total_tokens":160}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// bodyTransport answers every request with an event stream of body.
type bodyTransport struct{ body string }

func (t bodyTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK",
		Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body:   io.NopCloser(strings.NewReader(t.body)),
	}, nil
}

// BenchmarkStreamLines compares go-openai's line reader (RecvRaw) and
// encoding/json, the stream's path before, with eventReader and
// decodeChunk, its path now, on the same 150-chunk answer; b.N counts
// chunks.
func BenchmarkStreamLines(b *testing.B) {
	const chunks = 150
	body := benchBody(chunks)
	b.Run("go-openai+encoding-json", func(b *testing.B) {
		cc := goopenai.DefaultConfig("k")
		cc.HTTPClient = &http.Client{Transport: bodyTransport{body: body}}
		client := goopenai.NewClientWithConfig(cc)
		req := goopenai.ChatCompletionRequest{Model: "fake-chat", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "hi"}}}
		b.ReportAllocs()
		for n := 0; n < b.N; n += chunks {
			s, err := client.CreateChatCompletionStream(context.Background(), req)
			if err != nil {
				b.Fatal(err)
			}
			for {
				raw, err := s.RecvRaw()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				var c streamChunk
				if err := json.Unmarshal(raw, &c); err != nil {
					b.Fatal(err)
				}
			}
			_ = s.Close()
		}
	})
	b.Run("eventReader+decodeChunk", func(b *testing.B) {
		b.ReportAllocs()
		for n := 0; n < b.N; n += chunks {
			e := newEventReader(strings.NewReader(body))
			var c streamChunk
			for {
				raw, err := e.next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				if err := decodeChunk(raw, &c); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

func TestBenchBodyParses(t *testing.T) {
	got, done, err := readEvents(benchBody(3), 4096, nil)
	if len(got) != 4 || !done || !errors.Is(err, io.EOF) {
		t.Fatal(fmt.Sprint(len(got), done, err))
	}
}
