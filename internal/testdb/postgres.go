package testdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lib/pq"
)

// EnvDatabaseURL names the environment variable holding the admin URL of the
// PostgreSQL server that tests create their databases on.
const EnvDatabaseURL = "RAGCHAT_TEST_DATABASE_URL"

// EnvSkipPostgres names the environment variable that, when set to "1" and
// EnvDatabaseURL is unset, makes PostgreSQL tests skip instead of fail.
const EnvSkipPostgres = "RAGCHAT_SKIP_POSTGRES"

// createTimeout bounds creating (including retries) or dropping one database.
const createTimeout = time.Minute

// admin holds one connection pool per admin URL for the whole test process,
// so that creating and dropping databases does not open a connection each time.
var admin struct {
	mu    sync.Mutex
	pools map[string]*adminConn
}

// adminConn is the admin pool of one server.
type adminConn struct {
	db *sql.DB
	// fileCopy reports whether the server (PostgreSQL 15+) supports
	// CREATE DATABASE ... STRATEGY FILE_COPY, which is about twice as fast
	// as the default WAL_LOG for a small template on a test cluster.
	fileCopy bool
}

// PostgresURL returns the URL of a new, empty PostgreSQL database that has
// the pgvector extension and is dropped when the test and its subtests end.
//
// It fails the test when EnvDatabaseURL is unset, unless EnvSkipPostgres is
// "1", in which case it skips the test with a loud message. It skips the
// test when EnvBackends selects SQLite alone.
func PostgresURL(t testing.TB) string {
	t.Helper()
	skipUnlessPostgresRuns(t)
	base, ok := adminURL(t)
	if !ok {
		t.Skipf("SKIPPING PostgreSQL test: %s is unset and %s=1", EnvDatabaseURL, EnvSkipPostgres)
	}
	return createDatabase(t, base)
}

// adminURL returns the configured admin URL. It fails the test when none is
// configured, and reports ok=false when PostgreSQL tests are to be skipped.
func adminURL(t testing.TB) (u string, ok bool) {
	t.Helper()
	if u := os.Getenv(EnvDatabaseURL); u != "" {
		return u, true
	}
	if os.Getenv(EnvSkipPostgres) == "1" {
		return "", false
	}
	t.Fatalf("%s is not set: run `make test` (it starts a throwaway PostgreSQL 15 + pgvector), "+
		"or set %s to the URL of a PostgreSQL 15 server with pgvector whose role may CREATE DATABASE "+
		"(e.g. %s=$(scripts/pgtest.sh start $(mktemp -d))); set %s=1 to skip PostgreSQL tests explicitly",
		EnvDatabaseURL, EnvDatabaseURL, EnvDatabaseURL, EnvSkipPostgres)
	return "", false
}

// adminPool returns the process-wide pool for the admin URL base.
func adminPool(ctx context.Context, base string) (*adminConn, error) {
	admin.mu.Lock()
	defer admin.mu.Unlock()
	if a, ok := admin.pools[base]; ok {
		return a, nil
	}
	db, err := sql.Open("postgres", base)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(2)
	db.SetConnMaxIdleTime(time.Minute)
	var version int
	if err := db.QueryRowContext(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		_ = db.Close()
		return nil, err
	}
	a := &adminConn{db: db, fileCopy: version >= 150000}
	if admin.pools == nil {
		admin.pools = make(map[string]*adminConn)
	}
	admin.pools[base] = a
	return a, nil
}

// createDatabase creates a uniquely named database from template1 on the
// server at base, makes sure it has pgvector and registers its removal.
func createDatabase(t testing.TB, base string) string {
	t.Helper()
	return createDatabaseFrom(t, base, "template1")
}

// createDatabaseFrom is createDatabase copying template instead.
func createDatabaseFrom(t testing.TB, base, template string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), createTimeout)
	defer cancel()
	a, err := adminPool(ctx, base)
	if err != nil {
		t.Fatalf("testdb: connect to %s: %v", redact(base), err)
	}
	db := a.db
	name := databaseName(t.Name())
	dsn, err := withDatabase(base, name)
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	if err := createFromTemplate(ctx, a, name, template); err != nil {
		t.Fatalf("testdb: create database %s on %s: %v", name, redact(base), err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), createTimeout)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+pq.QuoteIdentifier(name)+" WITH (FORCE)"); err != nil {
			t.Errorf("testdb: drop database %s: %v", name, err)
		}
	})
	if err := ensureVector(ctx, dsn); err != nil {
		t.Fatalf("testdb: database %s: create extension vector: %v", name, err)
	}
	return dsn
}

// createFromTemplate runs CREATE DATABASE name TEMPLATE template, retrying
// while another session holds the template (SQLSTATE 55006), which happens
// briefly on shared servers.
func createFromTemplate(ctx context.Context, a *adminConn, name, template string) error {
	stmt := "CREATE DATABASE " + pq.QuoteIdentifier(name) + " TEMPLATE " + pq.QuoteIdentifier(template)
	if a.fileCopy {
		stmt += " STRATEGY FILE_COPY"
	}
	return execWhileBusy(ctx, a.db, stmt)
}

// execWhileBusy runs stmt on db, retrying while the database it names is
// accessed by another session (SQLSTATE 55006).
func execWhileBusy(ctx context.Context, db *sql.DB, stmt string) error {
	for attempt := 1; ; attempt++ {
		_, err := db.ExecContext(ctx, stmt)
		var pqErr *pq.Error
		if err == nil || !errors.As(err, &pqErr) || pqErr.Code != "55006" {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last error: %v)", ctx.Err(), err)
		case <-time.After(time.Duration(attempt) * 50 * time.Millisecond):
		}
	}
}

// ensureVector creates the vector extension in the database at dsn unless
// it came with the template.
func ensureVector(ctx context.Context, dsn string) error {
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS vector")
	return err
}

// databaseName derives a valid, unique database name from a test name:
// "test_", up to 32 characters of the lowercased name with every run of
// other characters replaced by "_", and 8 random hex digits.
func databaseName(testName string) string {
	var b strings.Builder
	underscore := true // suppress leading and repeated underscores
	for _, r := range strings.ToLower(testName) {
		if b.Len() >= 32 {
			break
		}
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			underscore = false
		} else if !underscore {
			b.WriteByte('_')
			underscore = true
		}
	}
	slug := strings.TrimRight(b.String(), "_")
	var random [4]byte
	_, _ = rand.Read(random[:]) // crypto/rand.Read never fails
	if slug == "" {
		return "test_" + hex.EncodeToString(random[:])
	}
	return "test_" + slug + "_" + hex.EncodeToString(random[:])
}

// withDatabase returns base with its database replaced by name. base is a
// postgres:// URL or a lib/pq key=value connection string.
func withDatabase(base, name string) (string, error) {
	if strings.HasPrefix(base, "postgres://") || strings.HasPrefix(base, "postgresql://") {
		u, err := url.Parse(base)
		if err != nil {
			return "", fmt.Errorf("parse %s: %w", EnvDatabaseURL, err)
		}
		u.Path = "/" + name
		u.RawPath = ""
		return u.String(), nil
	}
	if strings.Contains(base, "://") {
		return "", fmt.Errorf("%s has an unsupported scheme (want postgres://): %s", EnvDatabaseURL, redact(base))
	}
	// In lib/pq key=value strings a later key overrides an earlier one.
	return base + " dbname=" + name, nil
}

// redact hides a password in a URL for messages.
func redact(s string) string {
	if u, err := url.Parse(s); err == nil && u.Scheme != "" {
		return u.Redacted()
	}
	if strings.Contains(s, "password") {
		return "(connection string with password)"
	}
	return s
}
