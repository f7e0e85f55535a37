package chat_test

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// errOutage is what the flaky driver returns while the database is "down".
var errOutage = errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")

// flakyDriver is a database driver that can be switched off, to test what
// the engine saves when the database fails mid-flow.
type flakyDriver struct {
	dialect.Driver
	down *atomic.Bool
}

func (d flakyDriver) Exec(ctx context.Context, q string, args, v any) error {
	if d.down.Load() {
		return errOutage
	}
	return d.Driver.Exec(ctx, q, args, v)
}

func (d flakyDriver) Query(ctx context.Context, q string, args, v any) error {
	if d.down.Load() {
		return errOutage
	}
	return d.Driver.Query(ctx, q, args, v)
}

func (d flakyDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	if d.down.Load() {
		return nil, errOutage
	}
	tx, err := d.Driver.Tx(ctx)
	if err != nil {
		return nil, err
	}
	return flakyTx{Tx: tx, down: d.down}, nil
}

func (d flakyDriver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	if d.down.Load() {
		return nil, errOutage
	}
	tx, err := d.Driver.(interface {
		BeginTx(context.Context, *sql.TxOptions) (dialect.Tx, error)
	}).BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return flakyTx{Tx: tx, down: d.down}, nil
}

type flakyTx struct {
	dialect.Tx
	down *atomic.Bool
}

func (t flakyTx) Exec(ctx context.Context, q string, args, v any) error {
	if t.down.Load() {
		return errOutage
	}
	return t.Tx.Exec(ctx, q, args, v)
}

func (t flakyTx) Query(ctx context.Context, q string, args, v any) error {
	if t.down.Load() {
		return errOutage
	}
	return t.Tx.Query(ctx, q, args, v)
}

func (t flakyTx) Commit() error {
	if t.down.Load() {
		_ = t.Tx.Rollback()
		return errOutage
	}
	return t.Tx.Commit()
}

// TestDatabaseFailureMidFlow (seed 003: degrade, never corrupt): while the
// database is down an ask gets a typed UNAVAILABLE error and saves nothing;
// an answer that finishes while it is down saves nothing half-way (no
// assistant message without its COMPLETED attempt, no COMPLETED attempt
// without its message); once the database is back, the reaper resolves the
// attempt.
func TestDatabaseFailureMidFlow(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, raw *store.DB) {
		down := &atomic.Bool{}
		drv := flakyDriver{Driver: entsql.OpenDB(raw.Dialect, raw.SQL), down: down}
		db := &store.DB{Client: ent.NewClient(ent.Driver(drv)), SQL: raw.SQL, Dialect: raw.Dialect}
		e := newEnv(t, db)
		conv := e.conversation(t, alice)

		down.Store(true)
		_, err := e.eng.Ask(as(alice), conv.ID, "k0", "上传文件最大是多少？")
		assert.Equal(t, domain.CodeUnavailable, code(err), "%v", err)
		down.Store(false)
		assert.Zero(t, e.db.Client.Message.Query().CountX(as(alice)), "nothing saved")

		e.model.hold()
		res, err := e.eng.Ask(as(alice), conv.ID, "k1", "上传文件最大是多少？")
		require.NoError(t, err)
		require.Eventually(t, func() bool { return e.model.chatCalls() == 1 }, 10*time.Second, 5*time.Millisecond)
		down.Store(true)
		e.model.release()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		require.NoError(t, e.eng.Shutdown(ctx), "the run ends even though it cannot save")
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
		_ = uuid.Nil
	})
}

type execQuerier interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

func (d flakyDriver) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if d.down.Load() {
		return nil, errOutage
	}
	return d.Driver.(execQuerier).ExecContext(ctx, q, args...)
}

func (d flakyDriver) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if d.down.Load() {
		return nil, errOutage
	}
	return d.Driver.(execQuerier).QueryContext(ctx, q, args...)
}

func (t flakyTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if t.down.Load() {
		return nil, errOutage
	}
	return t.Tx.(execQuerier).ExecContext(ctx, q, args...)
}

func (t flakyTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if t.down.Load() {
		return nil, errOutage
	}
	return t.Tx.(execQuerier).QueryContext(ctx, q, args...)
}
