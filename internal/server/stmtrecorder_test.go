package server_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	"github.com/99designs/gqlgen/graphql"

	"github.com/ragchat/ragchat/internal/viewer"
)

// stmtRecorder is an Ent driver that records every statement a GraphQL
// operation sends (queries, raw statements, BEGIN, COMMIT and ROLLBACK),
// with its text and arguments, per acting viewer ("tenant/user").
// Background work outside an operation is not recorded.
type stmtRecorder struct {
	dialect.Driver
	log *stmtLog
}

// stmtLog holds what a stmtRecorder recorded.
type stmtLog struct {
	mu  sync.Mutex
	per map[string][]string
}

// newStmtRecorder returns a wrapper for servertest.Options.Driver and the
// log it records into.
func newStmtRecorder() (func(dialect.Driver) dialect.Driver, *stmtLog) {
	l := &stmtLog{per: map[string][]string{}}
	return func(d dialect.Driver) dialect.Driver { return stmtRecorder{Driver: d, log: l} }, l
}

// take returns and forgets what tenant's user sent.
func (l *stmtLog) take(tenant, user string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := tenant + "/" + user
	out := l.per[key]
	delete(l.per, key)
	return out
}

// record adds one statement sent with ctx.
func (l *stmtLog) record(ctx context.Context, q string, args any) {
	v := viewer.FromContext(ctx)
	if v == nil || !graphql.HasOperationContext(ctx) {
		return
	}
	s := q
	if args != nil {
		s += fmt.Sprintf(" %v", withoutTimes(args))
	}
	l.mu.Lock()
	key := v.TenantID + "/" + v.UserID
	l.per[key] = append(l.per[key], s)
	l.mu.Unlock()
}

// withoutTimes returns args with every time replaced by "<time>": the
// privacy rules' clock (a temporary chat's expiry) differs between two
// lookups by design, not by what they reveal.
func withoutTimes(args any) any {
	list, ok := args.([]any)
	if !ok {
		return args
	}
	out := make([]any, len(list))
	for i, a := range list {
		if _, isTime := a.(time.Time); isTime {
			a = "<time>"
		}
		out[i] = a
	}
	return out
}

// withoutID returns stmts with every occurrence of id replaced by "<id>",
// so that the statements of two lookups compare apart from the id.
func withoutID(stmts []string, id string) []string {
	out := make([]string, len(stmts))
	for i, s := range stmts {
		out[i] = strings.ReplaceAll(s, id, "<id>")
	}
	return out
}

type rawQuerier interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

func (d stmtRecorder) Exec(ctx context.Context, q string, args, v any) error {
	d.log.record(ctx, q, args)
	return d.Driver.Exec(ctx, q, args, v)
}

func (d stmtRecorder) Query(ctx context.Context, q string, args, v any) error {
	d.log.record(ctx, q, args)
	return d.Driver.Query(ctx, q, args, v)
}

// ExecContext runs a raw statement (the Ent client's ExecContext).
func (d stmtRecorder) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	d.log.record(ctx, q, args)
	return d.Driver.(rawQuerier).ExecContext(ctx, q, args...)
}

// QueryContext runs a raw query (the Ent client's QueryContext).
func (d stmtRecorder) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	d.log.record(ctx, q, args)
	return d.Driver.(rawQuerier).QueryContext(ctx, q, args...)
}

func (d stmtRecorder) Tx(ctx context.Context) (dialect.Tx, error) { return d.BeginTx(ctx, nil) }

// BeginTx records BEGIN and returns a transaction that records its
// statements and its end.
func (d stmtRecorder) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	d.log.record(ctx, "BEGIN", nil)
	tx, err := d.Driver.(interface {
		BeginTx(context.Context, *sql.TxOptions) (dialect.Tx, error)
	}).BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return recordedTx{Tx: tx, ctx: ctx, log: d.log}, nil
}

// recordedTx is a transaction of stmtRecorder; COMMIT and ROLLBACK are
// recorded for the viewer of the context that began it.
type recordedTx struct {
	dialect.Tx
	ctx context.Context
	log *stmtLog
}

func (t recordedTx) Exec(ctx context.Context, q string, args, v any) error {
	t.log.record(ctx, q, args)
	return t.Tx.Exec(ctx, q, args, v)
}

func (t recordedTx) Query(ctx context.Context, q string, args, v any) error {
	t.log.record(ctx, q, args)
	return t.Tx.Query(ctx, q, args, v)
}

// ExecContext runs a raw statement in the transaction.
func (t recordedTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	t.log.record(ctx, q, args)
	return t.Tx.(rawQuerier).ExecContext(ctx, q, args...)
}

// QueryContext runs a raw query in the transaction.
func (t recordedTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	t.log.record(ctx, q, args)
	return t.Tx.(rawQuerier).QueryContext(ctx, q, args...)
}

func (t recordedTx) Commit() error {
	t.log.record(t.ctx, "COMMIT", nil)
	return t.Tx.Commit()
}

func (t recordedTx) Rollback() error {
	t.log.record(t.ctx, "ROLLBACK", nil)
	return t.Tx.Rollback()
}
