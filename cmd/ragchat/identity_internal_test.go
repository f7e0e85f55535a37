package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/testdb"
)

// TestInstanceIdentity: the id persisted in the data directory survives
// restarts; two live processes never hold one id on one database (a
// configured id in use refuses to start, a persisted one gives way to a
// fresh id); a released id can be claimed again.
func TestInstanceIdentity(t *testing.T) {
	identityWait = 100 * time.Millisecond
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := config.Config{DataDir: dir, Database: config.Database{SQLitePath: filepath.Join(dir, "ragchat.db")}}
			var db *store.DB
			if b.Name == "sqlite" {
				db = sqliteAt(t, cfg.Database.SQLitePath) // the lock lives next to this file
			} else {
				db = storetest.Open(t, b)
			}

			first, err := claimIdentity(ctx, cfg, db, log)
			if err != nil || !first.stable || first.id == "" {
				t.Fatalf("first claim: %+v %v", first, err)
			}
			// A second process on the same data directory and database.
			second, err := claimIdentity(ctx, cfg, db, log)
			if err != nil {
				t.Fatal(err)
			}
			if second.id == first.id || second.stable {
				t.Fatalf("two live processes share %q (stable %v)", second.id, second.stable)
			}
			second.release()

			explicit := cfg
			explicit.InstanceID = first.id
			if _, err := claimIdentity(ctx, explicit, db, log); err == nil {
				t.Fatal("a configured id in use was accepted")
			}

			first.release() // the process ends
			again, err := claimIdentity(ctx, cfg, db, log)
			if err != nil || again.id != first.id || !again.stable {
				t.Fatalf("after a restart: %+v %v, want %q", again, err, first.id)
			}
			again.release()
			if b.Name != "sqlite" {
				// Released means the session ended: no connection of
				// the pool may still hold the lock (a pooled session would
				// keep it from every other process).
				// The server ends a closed session's backend
				// asynchronously, so a busy machine may still list its
				// lock for a moment: wait (bounded) for it to go.
				var held int
				for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
					if err := db.SQL.QueryRowContext(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&held); err != nil {
						t.Fatal(err)
					}
					if held == 0 || time.Now().After(deadline) {
						break
					}
				}
				if held != 0 {
					t.Fatalf("%d advisory locks still held 10 s after release", held)
				}
			}
		})
	}
}

// sqliteAt opens a migrated SQLite database at path.
func sqliteAt(t *testing.T, path string) *store.DB {
	t.Helper()
	db, err := store.OpenSQLiteDSN(context.Background(), store.SQLiteDSN(path), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}
