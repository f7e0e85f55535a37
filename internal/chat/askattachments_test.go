package chat_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// TestStatementsPerAskWithAttachments: an ask naming attachments sends
// one statement more than TestStatementsPerAsk's (the check of the ids in
// the ask's transaction); its answer sends as many (the read of the
// conversation's attachment chunks, which TestStatementsPerAsk's engine,
// wired as served with Deps.SearchAttachments, runs for every ask, and
// this one only for an ask naming attachments; the eager load of their
// attachments adds one when there are chunks, none here). The message
// keeps the ids.
func TestStatementsPerAskWithAttachments(t *testing.T) {
	want := map[string]struct{ ask, whole int64 }{
		"postgres": {ask: 4 + 1, whole: 18 + 1},
		"sqlite3":  {ask: 8 + 1, whole: 22 + 1},
	}
	storetest.ForEachBackend(t, func(t *testing.T, raw *store.DB) {
		db, n := countedDB(raw)
		limiter := func(d *chat.Deps) { d.AskLimiter = askrate.NewDBLimiter(db, nil) }
		e := newEnvDeps(t, db, nil, limiter, func(c *chat.Config, _ *domain.TenantSettings) { c.CheckpointInterval = time.Hour })
		conv := e.conversation(t, alice)
		e.ask(t, alice, conv.ID, "上传文件最大是多少？") // warm up: first ask sets the title
		chat.WaitIdle(e.eng)
		a, err := db.Client.Attachment.Create().SetConversationID(conv.ID).SetOwnerID(alice.UserID).
			SetName("notes.txt").SetMediaType("text/plain").SetSize(5).SetSha256("00").SetBlobKey("k").
			SetStatus(attachment.StatusREADY).Save(as(alice))
		require.NoError(t, err)

		release := chat.HoldRuns(e.eng)
		e.model.hold()
		n.Store(0)
		r, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, AttachmentIDs: []uuid.UUID{a.ID}, ClientMessageID: uuid.NewString(), Question: "那超过以后返回什么错误码？"})
		require.NoError(t, err)
		askOnly := n.Load()
		require.Equal(t, []uuid.UUID{a.ID}, r.UserMessage.AttachmentIds)
		release()
		ctx, cancel := context.WithTimeout(as(alice), 30*time.Second)
		defer cancel()
		ch, err := e.eng.SubscribeAttempt(ctx, r.Attempt.ID, 0)
		require.NoError(t, err)
		e.model.release()
		for range ch {
		}
		require.NoError(t, ctx.Err())
		chat.WaitIdle(e.eng)
		whole := n.Load()
		t.Logf("statements: ask call %d, whole ask %d", askOnly, whole)
		require.Equal(t, want[string(raw.Dialect)].ask, askOnly, "statements of the ask call")
		require.Equal(t, want[string(raw.Dialect)].whole, whole, "statements of the whole ask")

		stored, err := db.Client.Message.Get(as(alice), r.UserMessage.ID)
		require.NoError(t, err)
		require.Equal(t, []uuid.UUID{a.ID}, stored.AttachmentIds)
	})
}
