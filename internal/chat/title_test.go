package chat_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/llmfake"
	"github.com/ragchat/ragchat/internal/llm/openai"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// fakeTitles is a model whose titles come from the fake OpenAI-compatible
// server through the real openai adapter; everything else stays as it
// was.
type fakeTitles struct {
	llm.Model
	titles llm.Model
}

func (m fakeTitles) Title(ctx context.Context, firstQuestion string) (string, error) {
	return m.titles.Title(ctx, firstQuestion)
}

// isTitleRequest tells the openai adapter's title request apart from its
// answers.
func isTitleRequest(r llmfake.ChatRequest) bool {
	return len(r.Messages) > 0 && strings.Contains(r.Messages[0].Content, "short title")
}

// titleGate holds the fake model's title requests: arrived receives when
// one comes in, and it is answered (with the title, or failed) only once
// release is called.
type titleGate struct {
	arrived chan struct{}
	release func()
}

// holdTitles makes fake answer title requests with title once released,
// and every other request with answer.
func holdTitles(t *testing.T, fake *llmfake.Server, title, answer string) titleGate {
	released := make(chan struct{})
	var once sync.Once
	g := titleGate{arrived: make(chan struct{}, 10), release: func() { once.Do(func() { close(released) }) }}
	t.Cleanup(g.release)
	fake.SetReplyFunc(func(r llmfake.ChatRequest) string {
		if !isTitleRequest(r) {
			return answer
		}
		g.arrived <- struct{}{}
		<-released
		return title
	})
	return g
}

// TestBetterTitle: after the first answer a conversation is titled by
// its first question at once, and by the model's title when that arrives,
// without delaying the answer; the viewer's feed tells the user's other
// devices. A model that fails while titling leaves the first question's
// title; a user's rename made before the model's title arrives wins over
// it (the generated title is written only over a title that still came
// from the question).
func TestBetterTitle(t *testing.T) {
	const question = "上传文件最大是多少？"
	const better = "文件上传大小限制"
	const answer = "单个文件最大 20MB [C1]。"
	titles := func(c *chat.Config, _ *domain.TenantSettings) { c.GenerateTitles = true }
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		fake := llmfake.New()
		t.Cleanup(fake.Close)
		m, err := openai.New(openai.Config{
			BaseURL: fake.URL, APIKey: "test", ChatModel: "fake-chat", EmbeddingModel: "fake-embed",
			FirstTokenTimeout: 30 * time.Second, MaxRetries: 1, RetryBaseDelay: time.Millisecond,
		})
		require.NoError(t, err)
		e := newEnvDeps(t, db, m, func(d *chat.Deps) { d.Model = fakeTitles{Model: d.Model, titles: m} }, titles)
		// answered asks the first question and waits for its answer, while
		// the title request waits at g.
		answered := func(t *testing.T, g titleGate) *ent.Conversation {
			t.Helper()
			conv := e.conversation(t, alice)
			o := e.ask(t, alice, conv.ID, question)
			require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
			require.Equal(t, answer, o.attempt.Answer)
			select {
			case <-g.arrived:
			case <-time.After(30 * time.Second):
				t.Fatal("the model was never asked for a title")
			}
			c := e.db.Client.Conversation.GetX(as(alice), conv.ID)
			require.Equal(t, llm.ShortTitle(question), c.Title, "the first question titles the conversation at once")
			require.Equal(t, conversation.TitleSourceQUESTION, c.TitleSource)
			return c
		}

		t.Run("the model's title replaces the question's", func(t *testing.T) {
			g := holdTitles(t, fake, better, answer)
			conv := answered(t, g)
			ctx, cancel := context.WithTimeout(as(alice), 30*time.Second)
			defer cancel()
			viewerEvents, err := e.feed.SubscribeViewer(ctx)
			require.NoError(t, err)
			g.release()
			for ev := range viewerEvents {
				if ev.Kind == feed.ViewerConversationUpdated && ev.ConversationID == conv.ID {
					break
				}
			}
			require.NoError(t, ctx.Err(), "no CONVERSATION_UPDATED for the new title")
			chat.WaitIdle(e.eng)
			c := e.db.Client.Conversation.GetX(as(alice), conv.ID)
			assert.Equal(t, better, c.Title)
			assert.Equal(t, conversation.TitleSourceGENERATED, c.TitleSource)
			assert.Equal(t, conv.Version+1, c.Version, "the new title moves the version")
		})

		t.Run("a model that fails while titling leaves the question's title", func(t *testing.T) {
			g := holdTitles(t, fake, better, answer)
			fails := 0
			var mu sync.Mutex
			fake.SetFailFunc(func(r llmfake.ChatRequest) *llmfake.Failure {
				if !isTitleRequest(r) {
					return nil
				}
				mu.Lock()
				fails++
				mu.Unlock()
				g.arrived <- struct{}{}
				return &llmfake.Failure{Status: http.StatusInternalServerError}
			})
			t.Cleanup(func() { fake.SetFailFunc(nil) })
			conv := answered(t, g)
			chat.WaitIdle(e.eng)
			c := e.db.Client.Conversation.GetX(as(alice), conv.ID)
			assert.Equal(t, llm.ShortTitle(question), c.Title)
			assert.Equal(t, conversation.TitleSourceQUESTION, c.TitleSource)
			assert.Equal(t, conv.Version, c.Version)
			mu.Lock()
			defer mu.Unlock()
			assert.Positive(t, fails, "the title request failed")
		})

		t.Run("a rename before the model's title arrives wins", func(t *testing.T) {
			g := holdTitles(t, fake, better, answer)
			conv := answered(t, g)
			renamed, err := e.eng.RenameConversation(as(alice), conv.ID, "我的上传问题")
			require.NoError(t, err)
			g.release()
			chat.WaitIdle(e.eng)
			c := e.db.Client.Conversation.GetX(as(alice), conv.ID)
			assert.Equal(t, "我的上传问题", c.Title)
			assert.Equal(t, conversation.TitleSourceUSER, c.TitleSource)
			assert.Equal(t, renamed.Version, c.Version, "nothing wrote the conversation after the rename")
		})
	})
}
