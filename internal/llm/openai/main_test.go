package openai_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/llmfake"
	"github.com/ragchat/ragchat/internal/llm/openai"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// guard bounds waits for events that must happen; it is a liveness limit,
// not a timing assertion.
const guard = 10 * time.Second

// sleeps records the retry waits of a model instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// setup starts a fake server and a model against it. mod adjusts the
// config. Retry waits are recorded, not slept.
func setup(t *testing.T, mod func(*openai.Config)) (*llmfake.Server, llm.Model, *sleeps) {
	t.Helper()
	srv := llmfake.New()
	tr := &http.Transport{}
	t.Cleanup(func() {
		srv.Close()
		tr.CloseIdleConnections()
	})
	cfg := openai.Config{
		BaseURL: srv.URL, APIKey: "test-key", ChatModel: "fake-chat", EmbeddingModel: "fake-embed",
		HTTPClient: &http.Client{Transport: tr}, FirstTokenTimeout: guard, Timeout: 3 * guard,
	}
	if mod != nil {
		mod(&cfg)
	}
	m, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := &sleeps{}
	openai.SetSleep(m, s.sleep)
	return srv, m, s
}

// readAll reads s to its end or first error.
func readAll(s llm.Stream) ([]string, error) {
	var out []string
	for {
		d, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, d)
	}
}

// waitDisconnect waits until the fake server saw a client abandon a stream.
func waitDisconnect(t *testing.T, srv *llmfake.Server) {
	t.Helper()
	select {
	case <-srv.Disconnects():
	case <-time.After(guard):
		t.Fatal("the server never saw the client close the stream")
	}
}

func userPrompt(q string) llm.ChatRequest {
	return llm.ChatRequest{Messages: []llm.Message{{Role: llm.RoleSystem, Content: "rules"}, {Role: llm.RoleUser, Content: q}}}
}
