package chat_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/ragchat/ragchat/internal/store"
)

// hookDriver calls before ahead of every statement and commit; when it
// returns an error, the statement is not sent. Tests use it to count
// statements and to simulate a database outage.
type hookDriver struct {
	dialect.Driver
	before func() error
}

// hookedDB returns raw with every Ent statement going through before.
func hookedDB(raw *store.DB, before func() error) *store.DB {
	drv := hookDriver{Driver: entsql.OpenDB(raw.Dialect, raw.SQL), before: before}
	return &store.DB{Client: store.NewClient(drv, raw.Dialect), SQL: raw.SQL, Dialect: raw.Dialect, Session: raw.Session}
}

type execQuerier interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

func (d hookDriver) Exec(ctx context.Context, q string, args, v any) error {
	logStmt(q)
	if err := d.before(); err != nil {
		return err
	}
	return d.Driver.Exec(ctx, q, args, v)
}

func (d hookDriver) Query(ctx context.Context, q string, args, v any) error {
	logStmt(q)
	if err := d.before(); err != nil {
		return err
	}
	return d.Driver.Query(ctx, q, args, v)
}

func (d hookDriver) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	logStmt("raw: " + q)
	if err := d.before(); err != nil {
		return nil, err
	}
	return d.Driver.(execQuerier).ExecContext(ctx, q, args...)
}

func (d hookDriver) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	logStmt("raw: " + q)
	if err := d.before(); err != nil {
		return nil, err
	}
	return d.Driver.(execQuerier).QueryContext(ctx, q, args...)
}

func (d hookDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	return d.BeginTx(ctx, nil)
}

func (d hookDriver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	logStmt("BEGIN")
	if err := d.before(); err != nil {
		return nil, err
	}
	tx, err := d.Driver.(interface {
		BeginTx(context.Context, *sql.TxOptions) (dialect.Tx, error)
	}).BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return hookTx{Tx: tx, before: d.before}, nil
}

type hookTx struct {
	dialect.Tx
	before func() error
}

func (t hookTx) Exec(ctx context.Context, q string, args, v any) error {
	logStmt("  tx: " + q)
	if err := t.before(); err != nil {
		return err
	}
	return t.Tx.Exec(ctx, q, args, v)
}

func (t hookTx) Query(ctx context.Context, q string, args, v any) error {
	logStmt("  tx: " + q)
	if err := t.before(); err != nil {
		return err
	}
	return t.Tx.Query(ctx, q, args, v)
}

func (t hookTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	logStmt("  tx raw: " + q)
	if err := t.before(); err != nil {
		return nil, err
	}
	return t.Tx.(execQuerier).ExecContext(ctx, q, args...)
}

func (t hookTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	logStmt("  tx raw: " + q)
	if err := t.before(); err != nil {
		return nil, err
	}
	return t.Tx.(execQuerier).QueryContext(ctx, q, args...)
}

func (t hookTx) Commit() error {
	logStmt("COMMIT")
	if err := t.before(); err != nil {
		_ = t.Tx.Rollback()
		return err
	}
	return t.Tx.Commit()
}

// logStmt prints q (its first 160 bytes, or all of it when the value is
// "full") to stderr when the environment sets RAGCHAT_LOG_STATEMENTS, to
// see which statements a count is made of.
func logStmt(q string) {
	if v := os.Getenv("RAGCHAT_LOG_STATEMENTS"); v != "" {
		if len(q) > 160 && v != "full" {
			q = q[:160]
		}
		fmt.Fprintln(os.Stderr, "STMT", q)
	}
}
