// Package storetest opens migrated throwaway databases for tests, on both
// backends (PostgreSQL with pgvector, and SQLite).
package storetest

import (
	"context"
	"testing"

	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/testdb"
)

// Open returns a migrated database on backend b, closed when t ends. On
// PostgreSQL it applies the versioned migrations, exactly as production
// does; on SQLite it runs Ent's auto-migration.
func Open(t testing.TB, b testdb.Backend) *store.DB {
	t.Helper()
	ctx := context.Background()
	var (
		db  *store.DB
		err error
	)
	switch b.Name {
	case "postgres":
		db, err = store.Open(ctx, store.Config{DatabaseURL: b.DSN, Migrate: true, MaxOpenConns: 30})
	case "sqlite":
		db, err = store.OpenSQLiteDSN(ctx, b.DSN, true)
	default:
		t.Fatalf("storetest: unknown backend %q", b.Name)
	}
	if err != nil {
		t.Fatalf("storetest: open %s: %v", b.Name, err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// ForEachBackend runs fn as a subtest named after each backend ("postgres",
// "sqlite") with a fresh migrated database.
func ForEachBackend(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			fn(t, Open(t, b))
		})
	}
}
