// Package storetest opens migrated throwaway databases for tests, on both
// backends (PostgreSQL with pgvector, and SQLite).
package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"sync"
	"testing"

	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/testdb"
	"github.com/ragchat/ragchat/migrations"
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
// "sqlite") with a fresh migrated database. The PostgreSQL one is a copy of
// a template migrated once per server and set of migrations
// (testdb.MigratedBackends), so no test migrates its own.
func ForEachBackend(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	for _, b := range Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			fn(t, Open(t, b))
		})
	}
}

// Backends is testdb.Backends whose PostgreSQL database is already
// migrated: a copy of the template migrated once per server and set of
// migrations. Open it with Open (which then finds nothing to apply).
func Backends(t testing.TB) []testdb.Backend {
	t.Helper()
	return testdb.MigratedBackends(t, migrationsKey(t), migrate)
}

// migrate applies the migrations to the empty database at dsn, as
// production does, and closes its connections.
func migrate(ctx context.Context, dsn string) error {
	db, err := store.Open(ctx, store.Config{DatabaseURL: dsn, Migrate: true, MaxOpenConns: 2})
	if err != nil {
		return err
	}
	return db.Close()
}

var migrationsDigest = sync.OnceValues(func() (string, error) {
	h := sha256.New()
	err := fs.WalkDir(migrations.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations.FS, path)
		if err != nil {
			return err
		}
		h.Write([]byte(path + "\x00"))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))[:16], err
})

// migrationsKey is the digest of the embedded migrations: the template's
// key, so a changed migration builds a template of its own.
func migrationsKey(t testing.TB) string {
	t.Helper()
	key, err := migrationsDigest()
	if err != nil {
		t.Fatalf("storetest: read the migrations: %v", err)
	}
	return key
}
