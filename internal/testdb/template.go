package testdb

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"

	"entgo.io/ent/dialect"
	"github.com/lib/pq"
)

// A prepared template spares every test the work of preparing its
// database (migrating it): the first test of a process that asks for the
// template of a key builds it once on the server, and every PostgreSQL
// database of MigratedBackends is then a file copy of it. The template is
// named after its key, so test processes running at once, and later ones
// on the same server, share it: it is built under a temporary name and an
// advisory lock, then renamed, so no one copies a template half made.

// templates holds, per server and key, the process's one attempt at the
// template (its name, or the error building it).
var templates sync.Map // base + "\x00" + key → *templateOnce

type templateOnce struct {
	once sync.Once
	name string
	err  error
}

// MigratedBackends is Backends whose PostgreSQL database is a copy of the
// template prepare made for key (a digest of what prepare applies, the
// migrations: another key is another template); prepare runs on an empty
// database with pgvector and must close its connections before it
// returns. The SQLite database is fresh, as in Backends, and EnvBackends
// may select one backend as there.
func MigratedBackends(t testing.TB, key string, prepare func(ctx context.Context, dsn string) error) []Backend {
	t.Helper()
	var out []Backend
	if runs(NamePostgres) {
		if base, ok := adminURL(t); ok {
			tpl, err := preparedTemplate(base, key, prepare)
			if err != nil {
				t.Fatalf("testdb: template %s on %s: %v", key, redact(base), err)
			}
			out = append(out, Backend{Name: NamePostgres, Dialect: dialect.Postgres, Driver: PostgresDriver, DSN: createDatabaseFrom(t, base, tpl)})
		} else {
			t.Logf("SKIPPING the postgres backend: %s is unset and %s=1", EnvDatabaseURL, EnvSkipPostgres)
		}
	}
	if runs(NameSQLite) {
		out = append(out, Backend{Name: NameSQLite, Dialect: dialect.SQLite, Driver: SQLiteDriver, DSN: SQLiteDSN(t)})
	}
	return out
}

// preparedTemplate returns the name of key's template on the server at
// base, building it the first time any process asks.
func preparedTemplate(base, key string, prepare func(ctx context.Context, dsn string) error) (string, error) {
	v, _ := templates.LoadOrStore(base+"\x00"+key, &templateOnce{})
	o := v.(*templateOnce)
	o.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*createTimeout)
		defer cancel()
		o.name, o.err = buildTemplate(ctx, base, key, prepare)
	})
	return o.name, o.err
}

// buildTemplate makes key's template unless it exists, under an advisory
// lock of the key held on one admin connection.
func buildTemplate(ctx context.Context, base, key string, prepare func(ctx context.Context, dsn string) error) (string, error) {
	a, err := adminPool(ctx, base)
	if err != nil {
		return "", err
	}
	name := "ragchat_tpl_" + key
	sum := sha256.Sum256([]byte(name))
	lock := int64(binary.BigEndian.Uint64(sum[:8]))
	conn, err := a.db.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", lock); err != nil {
		return "", err
	}
	defer func() { _, _ = conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock($1)", lock) }()
	var exists bool
	if err := conn.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := databaseName("tpl " + key)
	if err := createFromTemplate(ctx, a, building, "template1"); err != nil {
		return "", err
	}
	dsn, err := withDatabase(base, building)
	if err == nil {
		err = ensureVector(ctx, dsn)
	}
	if err == nil {
		err = prepare(ctx, dsn)
	}
	if err == nil {
		err = execWhileBusy(ctx, a.db, "ALTER DATABASE "+pq.QuoteIdentifier(building)+" RENAME TO "+pq.QuoteIdentifier(name))
	}
	if err != nil {
		_, _ = a.db.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+pq.QuoteIdentifier(building)+" WITH (FORCE)")
		return "", fmt.Errorf("build: %w", err)
	}
	return name, nil
}
