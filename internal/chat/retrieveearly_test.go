package chat_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// gateDriver calls gate with the text of every statement sent outside a
// transaction before sending it.
type gateDriver struct {
	dialect.Driver
	gate func(q string)
}

func (d gateDriver) Query(ctx context.Context, q string, args, v any) error {
	d.gate(q)
	return d.Driver.Query(ctx, q, args, v)
}

func (d gateDriver) Exec(ctx context.Context, q string, args, v any) error {
	d.gate(q)
	return d.Driver.Exec(ctx, q, args, v)
}

func (d gateDriver) QueryContext(ctx context.Context, q string, args ...any) (*entsql.Rows, error) {
	d.gate(q)
	return d.Driver.(interface {
		QueryContext(context.Context, string, ...any) (*entsql.Rows, error)
	}).QueryContext(ctx, q, args...)
}

// embedSignal calls embedded whenever the engine embeds a question.
type embedSignal struct {
	llm.Model
	embedded func()
}

func (m embedSignal) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	m.embedded()
	return m.Model.Embed(ctx, texts)
}

// TestRetrievalDoesNotWaitForTheWindow checks that a question which cannot
// need history is retrieved while the history window loads
// (docs/ENGINE.md, "Ask, step by step"): the window's messages statement is
// held until the question has been embedded, which only a retrieval
// running beside the window can do. A sequential build would hold it until
// the hang guard and fail.
func TestRetrievalDoesNotWaitForTheWindow(t *testing.T) {
	const question = "上传文件的大小上限是多少？超过上限时服务端返回哪个错误码？"
	require.False(t, llm.NeedsHistory(question, true), "the question must be one the rule gate never rewrites")
	storetest.ForEachBackend(t, func(t *testing.T, raw *store.DB) {
		var (
			armed        atomic.Bool
			once         sync.Once
			embedded     = make(chan struct{})
			windowHeld   atomic.Int32
			embedsBefore atomic.Int32
		)
		gate := func(q string) {
			if !armed.Load() || !(strings.Contains(q, `FROM "messages"`) || strings.Contains(q, "FROM `messages`")) || strings.Contains(q, "INSERT") {
				return
			}
			windowHeld.Add(1)
			select {
			case <-embedded:
				embedsBefore.Add(1)
			case <-time.After(30 * time.Second): // hang guard only
			}
		}
		drv := gateDriver{Driver: entsql.OpenDB(raw.Dialect, raw.SQL), gate: gate}
		db := &store.DB{Client: store.NewClient(drv, raw.Dialect), SQL: raw.SQL, Dialect: raw.Dialect, Session: raw.Session}
		e := newEnvDeps(t, db, nil, func(d *chat.Deps) {
			d.Model = embedSignal{Model: d.Model, embedded: func() {
				if armed.Load() {
					once.Do(func() { close(embedded) })
				}
			}}
		})
		conv := e.conversation(t, alice)
		e.ask(t, alice, conv.ID, "上传文件最大是多少？") // the conversation has history
		chat.WaitIdle(e.eng)

		armed.Store(true)
		m, err := e.eng.PreviewContext(as(alice), conv.ID, question)
		armed.Store(false)
		require.NoError(t, err)
		require.NotEmpty(t, m.ChunkIDs, "the early retrieval's evidence reaches the prompt")
		require.Positive(t, windowHeld.Load(), "the window read its messages")
		require.Equal(t, windowHeld.Load(), embedsBefore.Load(), "the question was embedded while the window was loading")
	})
}
