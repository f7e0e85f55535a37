package store_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"testing"

	"github.com/lib/pq"
	_ "modernc.org/sqlite"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
)

// sqliteBusy returns a real SQLITE_BUSY error: a second connection asks for
// the write lock another holds, without waiting.
func sqliteBusy(t *testing.T) error {
	t.Helper()
	dsn := "file:" + filepath.Join(t.TempDir(), "busy.db") + "?_pragma=busy_timeout(0)&_pragma=journal_mode(wal)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	ctx := context.Background()
	holder, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if _, err := holder.ExecContext(ctx, "CREATE TABLE t (x int)"); err != nil {
		t.Fatal(err)
	}
	if _, err := holder.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = holder.ExecContext(ctx, "ROLLBACK") }()
	other, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = other.ExecContext(ctx, "INSERT INTO t VALUES (1)")
	if err == nil {
		t.Fatal("a second writer got the lock")
	}
	return err
}

// refused returns a real connection-refused error from the network stack.
func refused(t *testing.T) error {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	conn, err := net.Dial("tcp", addr)
	if err == nil {
		_ = conn.Close()
		t.Skip("the closed port accepted a connection")
	}
	return err
}

// TestTransientErrors: database errors are classified by type and code
// (SQLSTATE class, SQLite result code, network and driver sentinels), not
// by message text; a transient one maps to UNAVAILABLE.
func TestTransientErrors(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("ent: update attempt: %w", err) }
	cases := []struct {
		name      string
		err       error
		transient bool
	}{
		{"connection exception 08006", &pq.Error{Code: "08006"}, true},
		{"cannot connect 08001", &pq.Error{Code: "08001"}, true},
		{"admin shutdown 57P01", &pq.Error{Code: "57P01"}, true},
		{"crash shutdown 57P02", &pq.Error{Code: "57P02"}, true},
		{"starting up 57P03", &pq.Error{Code: "57P03"}, true},
		{"serialization failure 40001", &pq.Error{Code: "40001"}, true},
		{"deadlock 40P01", &pq.Error{Code: "40P01"}, true},
		{"too many connections 53300", &pq.Error{Code: "53300"}, true},
		{"disk full 53100", &pq.Error{Code: "53100"}, true},
		{"lock not available 55P03", &pq.Error{Code: "55P03"}, true},
		{"wrapped admin shutdown", wrap(&pq.Error{Code: "57P01"}), true},
		{"unique violation 23505", &pq.Error{Code: "23505", Message: "connection refused"}, false},
		{"syntax error 42601", &pq.Error{Code: "42601"}, false},
		{"query canceled 57014", &pq.Error{Code: "57014"}, false},
		{"sqlite busy", sqliteBusy(t), true},
		{"wrapped sqlite busy", wrap(sqliteBusy(t)), true},
		{"bad connection", driver.ErrBadConn, true},
		{"connection done", sql.ErrConnDone, true},
		{"connection refused", refused(t), true},
		{"wrapped connection refused", wrap(refused(t)), true},
		{"unexpected EOF", io.ErrUnexpectedEOF, true},
		{"statement deadline", wrap(context.DeadlineExceeded), true},
		{"cancelled", context.Canceled, false},
		{"no rows", sql.ErrNoRows, false},
		{"a message that merely looks like one", errors.New("database is locked: connection refused"), false},
		{"nil", nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := store.IsTransient(tc.err); got != tc.transient {
				t.Fatalf("IsTransient(%v) = %v, want %v", tc.err, got, tc.transient)
			}
			if tc.err == nil || errors.Is(tc.err, context.Canceled) || errors.Is(tc.err, context.DeadlineExceeded) {
				return
			}
			want := domain.CodeInternal
			if tc.transient {
				want = domain.CodeUnavailable
			}
			if got := domain.ErrorCode(store.DomainError(tc.err, "attempt")); got != want {
				t.Fatalf("DomainError code = %s, want %s", got, want)
			}
		})
	}
}
