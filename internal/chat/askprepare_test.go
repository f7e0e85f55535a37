package chat_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/hook"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestAskRunsEntHooks: every ask creates its USER message and PENDING
// attempt through Ent's whole hook chain, a client's first ask and the
// following ones alike, on both backends. Hooks added with Use see each
// create, and what they set is stored and returned, a JSON field included
// (the attempt's context manifest, which the PostgreSQL statement must
// encode as Ent does). Before, on PostgreSQL, every ask after a client's
// first wrote its rows past the hooks, with the privacy policy alone.
func TestAskRunsEntHooks(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		limiter := func(d *chat.Deps) { d.AskLimiter = askrate.NewDBLimiter(db, nil) }
		e := newEnvDeps(t, db, nil, limiter, func(c *chat.Config, _ *domain.TenantSettings) { c.CheckpointInterval = time.Hour })
		score := 0.75
		manifest := &domain.ContextManifest{
			Strategy: domain.StrategyPrioritized, HistoryFromSeq: 1, HistoryToSeq: 2, HistoryRounds: 1,
			Rounds:   []domain.ManifestRound{{UserSeq: 1, AssistantSeq: 2, Answer: domain.AnswerFull, Score: &score}},
			ChunkIDs: []string{"c-1", "c-2"}, Rules: "compact \"quoted\" ✓",
		}
		var (
			mu   sync.Mutex
			seen []string
		)
		db.Client.Message.Use(func(next ent.Mutator) ent.Mutator {
			return hook.MessageFunc(func(ctx context.Context, m *ent.MessageMutation) (ent.Value, error) {
				if role, _ := m.Role(); m.Op().Is(ent.OpCreate) && role == message.RoleUSER {
					content, _ := m.Content()
					mu.Lock()
					seen = append(seen, content)
					mu.Unlock()
					m.SetModel("set-by-hook")
				}
				return next.Mutate(ctx, m)
			})
		})
		db.Client.Attempt.Use(hook.On(func(next ent.Mutator) ent.Mutator {
			return hook.AttemptFunc(func(ctx context.Context, m *ent.AttemptMutation) (ent.Value, error) {
				m.SetContextManifest(manifest)
				return next.Mutate(ctx, m)
			})
		}, ent.OpCreate))

		release := chat.HoldRuns(e.eng)
		conv := e.conversation(t, alice)
		questions := []string{"上传文件最大是多少？", "那超过以后返回什么错误码？", "那退款呢？"}
		for _, q := range questions {
			r, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: q})
			require.NoError(t, err)
			// The run is held: the attempt is as the ask wrote it.
			msg := e.db.Client.Message.GetX(as(alice), r.UserMessage.ID)
			att := e.db.Client.Attempt.GetX(as(alice), r.Attempt.ID)
			for _, m := range []*ent.Message{msg, r.UserMessage} {
				require.NotNil(t, m.Model, "the message hook's field")
				require.Equal(t, "set-by-hook", *m.Model)
			}
			require.Equal(t, manifest, att.ContextManifest, "the attempt hook's JSON field, as stored")
			require.Equal(t, manifest, r.Attempt.ContextManifest, "the attempt hook's JSON field, as returned")
			release()
			e.wait(t, alice, r.Attempt.ID, 0)
			chat.WaitIdle(e.eng)
		}
		mu.Lock()
		defer mu.Unlock()
		require.Equal(t, questions, seen, "the message hook saw every ask's create, once")
	})
}

// TestEveryAskIsOneStatement: a client's first ask writes like every
// later one: on PostgreSQL the read and one data-modifying statement
// between BEGIN and COMMIT, on SQLite the read and Ent's writes.
// Before, a client's first ask on PostgreSQL took Ent's create (the rate,
// the sequence, the message and the attempt apart), to remember the
// entities the later asks were copied from.
func TestEveryAskIsOneStatement(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, raw *store.DB) {
		db, log := tracedDB(raw)
		limiter := func(d *chat.Deps) { d.AskLimiter = askrate.NewDBLimiter(db, nil) }
		e := newEnvDeps(t, db, nil, limiter, func(c *chat.Config, _ *domain.TenantSettings) { c.CheckpointInterval = time.Hour })
		release := chat.HoldRuns(e.eng)
		conv := e.conversation(t, alice)
		for i, q := range []string{"上传文件最大是多少？", "那超过以后返回什么错误码？"} {
			log.take()
			r, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: q})
			require.NoError(t, err)
			want := askTxStatements
			if i == 0 {
				want = firstAskTxStatements
			}
			require.Equal(t, inOneTx(want[raw.Dialect], "COMMIT"), log.take(), "ask %d", i+1)
			release()
			e.wait(t, alice, r.Attempt.ID, 0)
			chat.WaitIdle(e.eng)
		}
	})
}

// TestAskOnTenantWithoutStoredSettings: a tenant provisioned without
// settings (as `ragchat ingest` creates one) can be asked in on both
// backends. On SQLite the ask's conversation-and-settings join used to
// read a NULL settings column with no scan type, and the ask panicked
// (INTERNAL) before anything was stored.
func TestAskOnTenantWithoutStoredSettings(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		sys := viewer.SystemJobContext(t.Context(), viewer.JobProvision)
		require.NoError(t, db.Client.Tenant.UpdateOneID(demo.TenantID).ClearSettings().Exec(sys))
		conv := e.conversation(t, alice)
		out := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
		require.Equal(t, "COMPLETED", string(out.attempt.Status))
	})
}
