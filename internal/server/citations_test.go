package server_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/llmfake"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/llm/openai"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// fakeAnswers is the offline model (embeddings, rewrites, titles) whose
// answers come from the fake OpenAI-compatible server through the real
// openai adapter.
type fakeAnswers struct {
	llm.Model
	answers llm.Chat
}

func (m fakeAnswers) ChatStream(ctx context.Context, req llm.ChatRequest) (llm.Stream, error) {
	return m.answers.ChatStream(ctx, req)
}

// newFakeAnswers starts a fake model server and returns it with the model
// to give servertest.Options.
func newFakeAnswers(t *testing.T) (*llmfake.Server, llm.Model) {
	t.Helper()
	fake := llmfake.New()
	t.Cleanup(fake.Close)
	chat, err := openai.New(openai.Config{
		BaseURL: fake.URL, APIKey: "test", ChatModel: "fake-chat", EmbeddingModel: "fake-embed",
		FirstTokenTimeout: 30 * time.Second, MaxRetries: 1, RetryBaseDelay: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	return fake, fakeAnswers{Model: offline.New(offline.Options{TokenDelay: -1}), answers: chat}
}

// TestInventedCitationLabels: the model cites [C7] when the prompt carried
// fewer sources. The label is removed from the streamed text as from the
// saved answer, also when the model splits it across deltas ("[C" +
// "7]"), so the text a client has when the stream ends (its DELTAs,
// concatenated) is the COMPLETED event's answer and attempt(id).answer;
// known labels stay and are the only cited sources. The client follows
// the answer live (the fake model waits until it has subscribed), through
// the real server and a WebSocket, and the server's goroutines return to
// their baseline.
func TestInventedCitationLabels(t *testing.T) {
	// "[C7]" starts at an even rune, so two-rune chunks cut it "[C" + "7]".
	const reply = "答案是 20MB [C1]。另见[C7]。"
	const want = "答案是 20MB [C1]。另见。"
	fake, model := newFakeAnswers(t)
	eachBackend(t, servertest.Options{Model: model}, func(t *testing.T, h *servertest.Harness) {
		c := h.Client(t, "alice")
		answer := func(t *testing.T, chunkRunes int) (streamed string, final attemptView) {
			t.Helper()
			fake.SetChunkRunes(chunkRunes)
			release := make(chan struct{})
			fake.SetReplyFunc(func(llmfake.ChatRequest) string {
				<-release
				return reply
			})
			conv := createConversation(t, c)
			a := ask(t, c, conv, "上传文件最大是多少？")
			ws, err := c.DialWS(ctxT(t), gqlclient.WSOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			sub, err := ws.Subscribe(attemptEventsQuery, map[string]any{"a": a, "s": 0})
			if err != nil {
				t.Fatal(err)
			}
			first, err := sub.Next(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			close(release) // subscribed: the answer streams live from here
			events := append([]servertest.Event{servertest.DecodeEvent(t, first)}, collectEvents(t, sub)...)
			if !slices.ContainsFunc(events, func(e servertest.Event) bool { return e.Kind == "DELTA" }) {
				t.Fatalf("no DELTA: the answer was not followed live: %+v", events)
			}
			streamed = checkStream(t, events) // the DELTAs spell the COMPLETED answer
			return streamed, readAttempt(t, c, a)
		}
		answer(t, 100) // warm up the pools (database, model, WebSocket)
		baseline := settledGoroutines(c, 0)
		for _, chunk := range []int{100, 2, 1} {
			t.Run("chunk runes "+strconv.Itoa(chunk), func(t *testing.T) {
				streamed, final := answer(t, chunk)
				if streamed != want || final.Answer != want {
					t.Fatalf("streamed %q, saved %q; want %q", streamed, final.Answer, want)
				}
				var labels []string
				for _, s := range final.Sources {
					labels = append(labels, s.Label)
					if s.Cited != (s.Label == "C1") {
						t.Errorf("source %s cited: %v", s.Label, s.Cited)
					}
				}
				if !slices.Contains(labels, "C1") || slices.Contains(labels, "C7") {
					t.Fatalf("sources %v: the test needs C1 given and C7 invented", labels)
				}
			})
		}
		if n := settledGoroutines(c, baseline); n > baseline+3 {
			t.Fatalf("goroutines: %d after the streams, baseline %d", n, baseline)
		}
	})
}

// attemptView is an attempt as readAttempt reads it.
type attemptView struct {
	Answer  string
	Sources []struct {
		Label string
		Cited bool
	}
}

// readAttempt reads an attempt's answer and sources with a fresh query.
func readAttempt(t *testing.T, c *gqlclient.Client, id string) attemptView {
	t.Helper()
	var out struct{ Attempt attemptView }
	mustDo(t, c, `query($a: ID!) { attempt(id: $a) { answer sources { label cited } } }`, map[string]any{"a": id}, &out)
	return out.Attempt
}
