package llmfake_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/llm/llmfake"
)

// contentReader reads the content chunks of a chat stream.
type contentReader struct {
	t *testing.T
	r *bufio.Reader
}

// next returns the next content chunk, or done at the end of the stream.
func (c contentReader) next() (text string, done bool) {
	c.t.Helper()
	for {
		line, err := c.r.ReadString('\n')
		if err == io.EOF {
			return "", true
		}
		if err != nil {
			c.t.Fatal(err)
		}
		data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			return "", true
		}
		var ch struct {
			Choices []struct {
				Delta struct{ Content string } `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			c.t.Fatal(err)
		}
		if len(ch.Choices) > 0 && ch.Choices[0].Delta.Content != "" {
			return ch.Choices[0].Delta.Content, false
		}
	}
}

// TestGateHoldsStreamsUntilReleased: Hold(k) keeps a running stream
// before chunk k, moving the gate lets it go on to the new chunk, and
// Release lets it finish; Held and WaitHeld see the held stream.
func TestGateHoldsStreamsUntilReleased(t *testing.T) {
	srv := llmfake.New()
	defer srv.Close()
	srv.SetReply("aaaabbbbccccdddd")
	srv.SetChunkRunes(4)
	srv.Hold(2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp := post(t, ctx, client(t), srv.URL+"/chat/completions", `{"model":"m","stream":true,"messages":[]}`)
	defer resp.Body.Close()
	c := contentReader{t, bufio.NewReader(resp.Body)}
	for _, want := range []string{"aaaa", "bbbb"} {
		if got, done := c.next(); done || got != want {
			t.Fatalf("chunk %q (done %v), want %q", got, done, want)
		}
	}
	if err := srv.WaitHeld(ctx, 1); err != nil {
		t.Fatalf("the stream was not held: %v", err)
	}
	if n := srv.Held(); n != 1 {
		t.Fatalf("Held() = %d, want 1", n)
	}

	srv.Hold(3) // one more chunk, then held again
	if got, _ := c.next(); got != "cccc" {
		t.Fatalf("after moving the gate: %q, want cccc", got)
	}
	if err := srv.WaitHeld(ctx, 1); err != nil {
		t.Fatalf("the stream was not held again: %v", err)
	}

	srv.Release()
	if got, _ := c.next(); got != "dddd" {
		t.Fatalf("after the release: %q, want dddd", got)
	}
	if _, done := c.next(); !done {
		t.Fatal("the stream did not end after the release")
	}
	if n := srv.Held(); n != 0 {
		t.Fatalf("Held() = %d after the release, want 0", n)
	}
}

// TestGateReportsAClientGivingUp: a client that leaves while held ends
// its stream and is reported as a disconnect.
func TestGateReportsAClientGivingUp(t *testing.T) {
	srv := llmfake.New()
	defer srv.Close()
	srv.SetReply("aaaabbbb")
	srv.SetChunkRunes(4)
	srv.Hold(0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := post(t, ctx, client(t), srv.URL+"/chat/completions", `{"model":"m","stream":true,"messages":[]}`)
	defer resp.Body.Close()
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	if err := srv.WaitHeld(wctx, 1); err != nil {
		t.Fatalf("the stream was not held before its first chunk: %v", err)
	}
	cancel()
	select {
	case <-srv.Disconnects():
	case <-time.After(30 * time.Second):
		t.Fatal("disconnect not observed")
	}
	// The stream leaves the gate before it reports the disconnect.
	if n := srv.Held(); n != 0 {
		t.Fatalf("Held() = %d after the client left, want 0", n)
	}
}
