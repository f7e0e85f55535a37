package chat_test

import (
	"context"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// errOutage is what the flaky driver returns while the database is "down":
// the error a refused connection gives.
var errOutage = &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}

// TestDatabaseFailureMidFlow (docs/ENGINE.md D16: degrade, never corrupt): while the database
// is down an ask gets a typed UNAVAILABLE error and saves nothing; an
// answer that finishes while it is down and stays down for longer than
// CompletionRetryTimeout saves nothing half-way (no assistant message
// without its COMPLETED attempt, no COMPLETED attempt without its
// message), its subscriber gets FAILED(INTERRUPTED) at once although that
// write fails too, and once the database is back, the reaper resolves the
// attempt.
func TestDatabaseFailureMidFlow(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, raw *store.DB) {
		down := &atomic.Bool{}
		db := hookedDB(raw, func() error {
			if down.Load() {
				return errOutage
			}
			return nil
		})
		e := newEnv(t, db, func(c *chat.Config, _ *domain.TenantSettings) { c.CompletionRetryTimeout = 100 * time.Millisecond })
		conv := e.conversation(t, alice)

		down.Store(true)
		_, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: "k0", Question: "上传文件最大是多少？"})
		assert.Equal(t, domain.CodeUnavailable, code(err), "%v", err)
		down.Store(false)
		assert.Zero(t, e.db.Client.Message.Query().CountX(as(alice)), "nothing saved")

		e.model.hold()
		res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: "k1", Question: "上传文件最大是多少？"})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(as(alice), 30*time.Second) // hang guard
		defer cancel()
		ch, err := e.eng.SubscribeAttempt(ctx, res.Attempt.ID, 0)
		require.NoError(t, err)
		require.Eventually(t, func() bool { return e.model.chatCalls() == 1 }, 10*time.Second, 5*time.Millisecond)
		down.Store(true)
		e.model.release()
		var last chat.AttemptEvent
		for ev := range ch {
			last = ev
		}
		require.NoError(t, ctx.Err(), "no terminal event while the database is down")
		assert.Equal(t, chat.EventFailed, last.Kind)
		assert.Equal(t, domain.FailureInterrupted, last.FailureCode)
		sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer scancel()
		require.NoError(t, e.eng.Shutdown(sctx), "the run ends even though it cannot save")
		down.Store(false)

		a := e.db.Client.Attempt.GetX(as(alice), res.Attempt.ID)
		assert.Equal(t, attempt.StatusPENDING, a.Status, "not completed without its message")
		assert.Zero(t, e.db.Client.Message.Query().Where(message.RoleEQ(message.RoleASSISTANT)).CountX(as(alice)),
			"no assistant message without its completed attempt")
		assert.Zero(t, e.db.Client.Source.Query().Where(source.AttemptID(a.ID)).CountX(as(alice)))
		assert.Equal(t, 1, e.db.Client.Message.Query().CountX(as(alice)), "the user message is kept")

		e.clock.advance(time.Minute)
		n, err := e.eng.ReapOnce(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		a = e.db.Client.Attempt.GetX(as(alice), res.Attempt.ID)
		assert.Equal(t, attempt.StatusFAILED, a.Status)
		assert.Equal(t, string(domain.FailureInterrupted), *a.FailureCode)
	})
}
