package llmfake_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ragchat/ragchat/internal/llm/llmfake"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func post(t *testing.T, ctx context.Context, c *http.Client, url, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func client(t *testing.T) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func TestStreamWireFormat(t *testing.T) {
	srv := llmfake.New()
	defer srv.Close()
	srv.SetReplyFunc(func(r llmfake.ChatRequest) string { return "echo:" + r.LastUser() })
	srv.SetChunkRunes(3)
	resp := post(t, context.Background(), client(t), srv.URL+"/chat/completions",
		`{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hello"}]}`)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var text strings.Builder
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line %q is not an SSE data line", line)
		}
		events = append(events, data)
		if data == "[DONE]" {
			continue
		}
		var c struct {
			Object  string `json:"object"`
			Choices []struct {
				Delta        struct{ Content string } `json:"delta"`
				FinishReason *string                  `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct {
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil || c.Object != "chat.completion.chunk" {
			t.Fatalf("chunk %q: %v", data, err)
		}
		for _, ch := range c.Choices {
			text.WriteString(ch.Delta.Content)
		}
	}
	if text.String() != "echo:hello" {
		t.Errorf("streamed text %q", text.String())
	}
	n := len(events)
	if n < 5 || events[n-1] != "[DONE]" || !strings.Contains(events[n-2], `"usage":{"prompt_tokens"`) || !strings.Contains(events[n-3], `"finish_reason":"stop"`) {
		t.Errorf("events end with %q", events[max(0, n-3):])
	}
}

func TestCompletionAndFailures(t *testing.T) {
	srv := llmfake.New()
	defer srv.Close()
	c := client(t)
	srv.FailNext(1, llmfake.Failure{Status: 429, RetryAfter: "2"})
	resp := post(t, context.Background(), c, srv.URL+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("status %d retry-after %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	resp = post(t, context.Background(), c, srv.URL+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`)
	defer resp.Body.Close()
	var out struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
		Usage struct {
			TotalTokens int `json:"total_tokens"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Choices[0].Message.Content != llmfake.DefaultReply || out.Usage.TotalTokens == 0 {
		t.Fatalf("completion %+v, %v", out, err)
	}
	if srv.RequestCount() != 2 || len(srv.Requests()) != 2 {
		t.Errorf("recorded %d/%d requests", srv.RequestCount(), len(srv.Requests()))
	}
}

// TestFailFunc: only the chat requests the function picks fail, with the
// failure it returns; the others are answered.
func TestFailFunc(t *testing.T) {
	srv := llmfake.New()
	defer srv.Close()
	c := client(t)
	srv.SetFailFunc(func(r llmfake.ChatRequest) *llmfake.Failure {
		if r.LastUser() == "fail me" {
			return &llmfake.Failure{Status: 503}
		}
		return nil
	})
	for _, tc := range []struct {
		content string
		status  int
	}{{"fail me", 503}, {"answer me", 200}, {"fail me", 503}} {
		resp := post(t, context.Background(), c, srv.URL+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"`+tc.content+`"}]}`)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%q: status %d, want %d", tc.content, resp.StatusCode, tc.status)
		}
	}
	srv.SetFailFunc(nil)
	resp := post(t, context.Background(), c, srv.URL+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"fail me"}]}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("after SetFailFunc(nil): status %d", resp.StatusCode)
	}
}

func TestEmbeddingsAcceptAStringInput(t *testing.T) {
	srv := llmfake.New()
	defer srv.Close()
	resp := post(t, context.Background(), client(t), srv.URL+"/embeddings", `{"model":"e","input":"hello","dimensions":5}`)
	defer resp.Body.Close()
	var out struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Data) != 1 || len(out.Data[0].Embedding) != 5 {
		t.Fatalf("embeddings %+v, %v", out, err)
	}
	for i, x := range llmfake.Vector("hello", 5) {
		if out.Data[0].Embedding[i] != x {
			t.Fatalf("vector differs from Vector()")
		}
	}
}

func TestDisconnectIsObserved(t *testing.T) {
	srv := llmfake.New()
	defer srv.Close()
	srv.SetChunkDelay(time.Hour)
	srv.SetReply("a long answer that never finishes")
	ctx, cancel := context.WithCancel(context.Background())
	resp := post(t, ctx, client(t), srv.URL+"/chat/completions", `{"model":"m","stream":true,"messages":[]}`)
	defer resp.Body.Close()
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	if !strings.HasPrefix(line, "data: ") {
		t.Fatalf("first line %q", line)
	}
	cancel()
	select {
	case <-srv.Disconnects():
	case <-time.After(10 * time.Second):
		t.Fatal("disconnect not observed")
	}
	if srv.AbandonedStreams() != 1 {
		t.Errorf("abandoned = %d", srv.AbandonedStreams())
	}
}

func TestCloseEndsStalledHandlers(t *testing.T) {
	srv := llmfake.New()
	srv.SetStall(true)
	c := client(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/chat/completions", strings.NewReader(`{"stream":true}`))
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	for srv.RequestCount() == 0 {
		time.Sleep(time.Millisecond)
	}
	srv.Close() // must not hang on the stalled handler
	<-done
}

// TestStallAfter: the stream sends k content chunks, then nothing, with the
// connection open, until the client leaves.
func TestStallAfter(t *testing.T) {
	srv := llmfake.New()
	defer srv.Close()
	srv.SetReply("one two three four five six")
	srv.SetChunkRunes(4)
	srv.SetStallAfter(3)
	ctx, cancel := context.WithCancel(context.Background())
	resp := post(t, ctx, client(t), srv.URL+"/chat/completions", `{"model":"m","stream":true,"messages":[]}`)
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	var content []string
	for len(content) < 3 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(line, `"content":"`) {
			content = append(content, line)
		}
	}
	if strings.Contains(strings.Join(content, ""), "four") {
		t.Fatalf("more than three chunks: %q", content)
	}
	cancel()
	select {
	case <-srv.Disconnects():
	case <-time.After(10 * time.Second):
		t.Fatal("disconnect not observed")
	}
}

// TestChunkText rewrites each content chunk as it is sent, with its index.
func TestChunkText(t *testing.T) {
	srv := llmfake.New()
	defer srv.Close()
	srv.SetReply("abcdefg")
	srv.SetChunkRunes(3)
	srv.SetChunkText(func(i int, text string) string { return "<" + string(rune('0'+i)) + ">" + text })
	resp := post(t, context.Background(), client(t), srv.URL+"/chat/completions",
		`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	defer resp.Body.Close()
	var text strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct{ Content string } `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatal(err)
		}
		for _, ch := range c.Choices {
			text.WriteString(ch.Delta.Content)
		}
	}
	if got, want := text.String(), "<0>abc<1>def<2>g"; got != want {
		t.Errorf("streamed %q, want %q", got, want)
	}
}
