package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"entgo.io/ent/dialect"

	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/store"
)

// The instance identity (docs/ENGINE.md, "Leases, the reaper and
// restarts"). Attempts are leased to an instance id; an instance that
// restarts with the same id reclaims at once what its previous life left
// PENDING. The id is RAGCHAT_INSTANCE_ID when set, else one generated on
// first start and persisted in the data directory. Two live processes must
// never share an id on one database — one would reclaim the other's running
// attempts — so the id is also locked for the process's lifetime where the
// leases live: a PostgreSQL session advisory lock, or a file lock next to
// the SQLite file. Both vanish with the process, kill -9 included.

// identityFile is the file in the data directory that keeps the id.
const identityFile = "instance-id"

// identityWait bounds how long a start waits for the lock of its
// persisted id: the session of a killed previous life may still be closing.
var identityWait = 5 * time.Second

// identity is the claimed instance id and what holds its lock.
type identity struct {
	id string
	// stable is true when the id survives restarts (configured or
	// persisted), so ReclaimOwn has something to find.
	stable  bool
	release func()
}

// claimIdentity resolves this process's instance id and locks it on db. A
// configured id that another live process holds is an error; a persisted
// id that another process holds (two replicas sharing one data directory)
// gives way to a fresh id for this life only, with a warning.
func claimIdentity(ctx context.Context, cfg config.Config, db *store.DB, log *slog.Logger) (*identity, error) {
	id, fromEnv := cfg.InstanceID, cfg.InstanceID != ""
	if !fromEnv {
		var err error
		if id, err = persistedIdentity(cfg.DataDir); err != nil {
			return nil, err
		}
	}
	release, err := lockIdentity(ctx, cfg, db, id, log)
	switch {
	case err == nil:
		return &identity{id: id, stable: true, release: release}, nil
	case !errors.Is(err, errIdentityInUse):
		return nil, err
	case fromEnv:
		return nil, fmt.Errorf("RAGCHAT_INSTANCE_ID %q is in use by another live process on this database; give every replica its own id", id)
	}
	fresh := newIdentity()
	log.Warn("the persisted instance id is in use by another live process (a shared data directory?); using a fresh id for this run",
		slog.String("persisted", id), slog.String("instance", fresh))
	release, err = lockIdentity(ctx, cfg, db, fresh, log)
	if err != nil {
		return nil, err
	}
	return &identity{id: fresh, release: release}, nil
}

// persistedIdentity reads the id kept in dir, creating it on first start.
func persistedIdentity(dir string) (string, error) {
	path := filepath.Join(dir, identityFile)
	b, err := os.ReadFile(path)
	if err == nil {
		if id := strings.TrimSpace(string(b)); id != "" {
			return id, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read the instance id: %w", err)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", fmt.Errorf("create the data directory: %w", err)
	}
	id := newIdentity()
	tmp, err := os.CreateTemp(dir, identityFile+".*")
	if err != nil {
		return "", fmt.Errorf("write the instance id: %w", err)
	}
	_, err = tmp.WriteString(id + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return "", fmt.Errorf("write the instance id: %w", err)
	}
	return id, nil
}

// newIdentity is the host name and random digits.
func newIdentity() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "ragchat"
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return host + "-" + hex.EncodeToString(b)
}

// errIdentityInUse: another live process holds the id's lock.
var errIdentityInUse = errors.New("instance id in use")

// lockIdentity locks id for this process on the database, waiting up to
// identityWait for a previous holder to go away.
func lockIdentity(ctx context.Context, cfg config.Config, db *store.DB, id string, log *slog.Logger) (func(), error) {
	deadline := time.Now().Add(identityWait)
	for {
		var (
			release func()
			err     error
		)
		if db.Dialect == dialect.Postgres {
			release, err = lockPostgres(ctx, db.SQL, id, log)
		} else {
			release, err = lockFile(cfg.Database.SQLitePath + ".instance-" + identityKeyHex(id) + ".lock")
		}
		if !errors.Is(err, errIdentityInUse) || time.Now().After(deadline) {
			return release, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// identityKey is the advisory lock key of id.
func identityKey(id string) int64 {
	sum := sha256.Sum256([]byte("ragchat instance " + id))
	return int64(binary.BigEndian.Uint64(sum[:8]))
}

func identityKeyHex(id string) string {
	sum := sha256.Sum256([]byte("ragchat instance " + id))
	return hex.EncodeToString(sum[:6])
}

// lockPostgres takes a session advisory lock on a connection kept for the
// process's lifetime. If that connection breaks (a database restart), a
// watcher takes the lock again on a new one, and reports loudly if another
// process took it meanwhile.
func lockPostgres(ctx context.Context, pool *sql.DB, id string, log *slog.Logger) (func(), error) {
	conn, err := tryAdvisoryLock(ctx, pool, id)
	if err != nil {
		return nil, err
	}
	wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-wctx.Done():
				if conn != nil {
					discardConn(conn) // ends the session, which releases the lock
				}
				return
			case <-t.C:
			}
			if conn != nil && conn.PingContext(wctx) == nil {
				continue
			}
			if conn != nil {
				discardConn(conn)
				conn = nil
			}
			next, err := tryAdvisoryLock(wctx, pool, id)
			switch {
			case err == nil:
				conn = next
			case errors.Is(err, errIdentityInUse):
				log.Error("another process took this instance's id while the database was unreachable; give every replica its own id",
					slog.String("instance", id))
			}
			// Otherwise the database is still unreachable: next tick.
		}
	}()
	return func() { stop(); <-done }, nil
}

// tryAdvisoryLock takes the id's advisory lock on a new connection.
func tryAdvisoryLock(ctx context.Context, pool *sql.DB, id string) (*sql.Conn, error) {
	conn, err := pool.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock the instance id: %w", err)
	}
	var ok bool
	if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1)", identityKey(id)).Scan(&ok); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("lock the instance id: %w", err)
	}
	if !ok {
		_ = conn.Close()
		return nil, errIdentityInUse
	}
	return conn, nil
}

// discardConn closes conn's database session instead of returning it to
// the pool, so that the session's advisory lock is released now, not when
// the pool happens to close the connection.
func discardConn(conn *sql.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	_ = conn.Close()
}
