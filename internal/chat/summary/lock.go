package summary

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"
)

// lockTimeout bounds how long a summariser waits for another one on the
// same conversation in PostgreSQL (the article's "reasonable timeout" on
// the per-conversation lock).
const lockTimeout = "30s"

// lock serialises compression of one conversation. On PostgreSQL every
// summariser, whatever its instance, takes a transaction-scoped advisory
// lock keyed by the conversation, held by an otherwise idle transaction
// until release; the transaction ends (and the lock with it) on release,
// on ctx's end and if its connection breaks, so a crashed summariser never
// leaves the lock behind. Before that it waits on this Summarizer's
// in-process lock for the conversation, so that at most one connection per
// conversation and instance waits in the database, and on one of a few
// slots per Summarizer (a quarter of the connection pool), so that lock
// transactions can never take every connection the folds themselves need.
// A pool of one connection cannot hold a lock transaction and fold: there,
// as on SQLite, the in-process lock (process-wide on SQLite, which serves
// one process) is the whole serialisation, and the fold's compare-and-swap
// guards the rest.
func (s *Summarizer) lock(ctx context.Context, id uuid.UUID) (func(), error) {
	db := s.DB
	postgres := db != nil && db.SQL != nil && db.Dialect == dialect.Postgres
	locks := &processLocks
	if postgres {
		locks = &s.serial.locks
	}
	unlock, err := locks.lock(ctx, id)
	if err != nil {
		return nil, err
	}
	maxOpen := 0
	if postgres {
		maxOpen = db.SQL.Stats().MaxOpenConnections
	}
	if !postgres || maxOpen == 1 {
		// A pool of one connection cannot hold a lock transaction and
		// fold; the compare-and-swap with recomputation guards it alone.
		return unlock, nil
	}
	slots := s.serial.slotsFor(maxOpen)
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		unlock()
		return nil, ctx.Err()
	}
	release := func() {
		<-slots
		unlock()
	}
	tx, err := db.SQL.BeginTx(ctx, nil)
	if err != nil {
		release()
		return nil, fmt.Errorf("lock the summary: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "SELECT set_config('lock_timeout', $1, true)", lockTimeout); err != nil {
		_ = tx.Rollback()
		release()
		return nil, fmt.Errorf("lock the summary: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey(id)); err != nil {
		_ = tx.Rollback()
		release()
		return nil, fmt.Errorf("lock the summary: %w", err)
	}
	return func() {
		_ = tx.Rollback()
		release()
	}, nil
}

// serial is a summariser's serialisation: its in-process locks by
// conversation and, on PostgreSQL, the slots bounding how many lock
// transactions it holds at once.
type serial struct {
	locks keyedLocks
	once  sync.Once
	slots chan struct{}
}

// slotsFor returns the slots, sized on first use to a quarter of a pool of
// maxOpen connections (8 for an unbounded pool, at least 1).
func (s *serial) slotsFor(maxOpen int) chan struct{} {
	s.once.Do(func() {
		n := maxOpen / 4
		if maxOpen <= 0 {
			n = 8
		}
		s.slots = make(chan struct{}, max(n, 1))
	})
	return s.slots
}

// lockKey is the advisory lock key of a conversation's summary.
func lockKey(id uuid.UUID) int64 {
	sum := sha256.Sum256(append([]byte("ragchat summary "), id[:]...))
	return int64(binary.BigEndian.Uint64(sum[:8]))
}

// processLocks are the summary locks of every summariser of this process
// on SQLite.
var processLocks keyedLocks

// keyedLocks is a set of mutexes by key whose waits end with a context;
// an entry lives while someone holds or waits for it.
type keyedLocks struct {
	mu sync.Mutex
	m  map[uuid.UUID]*keyedLock
}

type keyedLock struct {
	ch   chan struct{}
	refs int
}

// lock takes id's lock, or returns ctx's error if ctx ends first.
func (k *keyedLocks) lock(ctx context.Context, id uuid.UUID) (func(), error) {
	k.mu.Lock()
	if k.m == nil {
		k.m = map[uuid.UUID]*keyedLock{}
	}
	l := k.m[id]
	if l == nil {
		l = &keyedLock{ch: make(chan struct{}, 1)}
		k.m[id] = l
	}
	l.refs++
	k.mu.Unlock()
	select {
	case l.ch <- struct{}{}:
		var once sync.Once
		return func() {
			once.Do(func() {
				<-l.ch
				k.unref(id, l)
			})
		}, nil
	case <-ctx.Done():
		k.unref(id, l)
		return nil, ctx.Err()
	}
}

func (k *keyedLocks) unref(id uuid.UUID, l *keyedLock) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if l.refs--; l.refs == 0 {
		delete(k.m, id)
	}
}

// len is the number of keys held or waited for.
func (k *keyedLocks) len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.m)
}

// Locks is the number of conversations whose summary lock is held or
// waited for, by this summariser or, on SQLite, by any of this process.
func (s *Summarizer) Locks() int {
	return s.serial.locks.len() + processLocks.len()
}
