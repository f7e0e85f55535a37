package persisted

import (
	"context"
	"log/slog"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/persistedquery"
	"github.com/ragchat/ragchat/internal/defaults"
	"github.com/ragchat/ragchat/internal/viewer"
)

// StoreOptions tune a Store.
type StoreOptions struct {
	// MaxRows bounds the shared table: after a write, the least recently
	// used rows past it are deleted (default 10,000).
	MaxRows int
	// FrontSize bounds the in-process cache in front of the table
	// (default 1,000).
	FrontSize int
	// TouchEvery is how stale a row's last use may get before a read
	// refreshes it (default one hour): eviction order is only as precise
	// as this, and a hot query costs one UPDATE per interval per instance.
	TouchEvery time.Duration
	// Logger receives database errors, which the store answers as a miss
	// (the client then sends the query again).
	Logger *slog.Logger
	// Now replaces the clock in tests.
	Now func() time.Time
}

// Store is the APQ cache (a graphql.Cache[string]): the query texts by the
// SHA-256 of their text, in the persisted_queries table that every
// instance on the database shares, with a small LRU of recent ones in
// front. It reads and writes the table as viewer.JobPersistedQueries, the
// only context the table's privacy policy allows. Callers verify the hash
// and the size before Add (Extension does).
type Store struct {
	client *ent.Client
	opts   StoreOptions
	front  *lru.Cache[string, *frontEntry]
	// evicting serialises this instance's evictions (instances may
	// evict at once; both delete the oldest rows, which is harmless).
	evicting sync.Mutex
}

// frontEntry is one cached query and when this instance last refreshed
// its row's last use.
type frontEntry struct {
	query   string
	mu      sync.Mutex
	touched time.Time
}

// NewStore returns the store on client's persisted_queries table.
func NewStore(client *ent.Client, o StoreOptions) *Store {
	if o.MaxRows < 1 {
		o.MaxRows = 10000
	}
	if o.FrontSize < 1 {
		o.FrontSize = 1000
	}
	if o.TouchEvery <= 0 {
		o.TouchEvery = time.Hour
	}
	o.Logger = defaults.Logger(o.Logger)
	o.Now = defaults.Clock(o.Now)
	front, _ := lru.New[string, *frontEntry](o.FrontSize) // fails only for a size below 1
	return &Store{client: client, opts: o, front: front}
}

// system is the context the table's policy allows, keeping ctx's deadline
// and values but no viewer.
func system(ctx context.Context) context.Context {
	return viewer.SystemJobContext(ctx, viewer.JobPersistedQueries)
}

// Get returns the query registered under hash, from the front cache or the
// table; a database error is logged and answered as a miss.
func (s *Store) Get(ctx context.Context, hash string) (string, bool) {
	if e, ok := s.front.Get(hash); ok {
		s.touch(ctx, hash, e)
		return e.query, true
	}
	row, err := s.client.PersistedQuery.Get(system(ctx), hash)
	if err != nil {
		if !ent.IsNotFound(err) {
			s.opts.Logger.WarnContext(ctx, "persisted query read failed", slog.String("error", err.Error()))
		}
		return "", false
	}
	e := &frontEntry{query: row.Query, touched: row.LastUsedAt}
	s.front.Add(hash, e)
	s.touch(ctx, hash, e)
	return row.Query, true
}

// touch refreshes the row's last use when this instance has not done so
// for TouchEvery.
func (s *Store) touch(ctx context.Context, hash string, e *frontEntry) {
	now := s.opts.Now()
	e.mu.Lock()
	stale := now.Sub(e.touched) >= s.opts.TouchEvery
	if stale {
		e.touched = now
	}
	e.mu.Unlock()
	if !stale {
		return
	}
	err := s.client.PersistedQuery.UpdateOneID(hash).SetLastUsedAt(now).Exec(system(ctx))
	if err != nil && !ent.IsNotFound(err) {
		s.opts.Logger.WarnContext(ctx, "persisted query touch failed", slog.String("error", err.Error()))
	}
}

// Add registers query under hash (already verified as its SHA-256): an
// upsert that refreshes the last use of a row another instance wrote,
// then the eviction of the rows past MaxRows. A query already in the
// front cache costs nothing.
func (s *Store) Add(ctx context.Context, hash, query string) {
	if e, ok := s.front.Get(hash); ok {
		s.touch(ctx, hash, e)
		return
	}
	now := s.opts.Now()
	sctx := system(ctx)
	err := s.client.PersistedQuery.Create().
		SetID(hash).SetQuery(query).SetCreatedAt(now).SetLastUsedAt(now).
		OnConflictColumns(persistedquery.FieldID).UpdateLastUsedAt().
		Exec(sctx)
	if err != nil {
		s.opts.Logger.WarnContext(ctx, "persisted query write failed", slog.String("error", err.Error()))
		return
	}
	s.front.Add(hash, &frontEntry{query: query, touched: now})
	s.evict(sctx)
}

// evictBatch bounds the rows one eviction deletes.
const evictBatch = 1000

// evict deletes the least recently used rows past MaxRows.
func (s *Store) evict(ctx context.Context) {
	s.evicting.Lock()
	defer s.evicting.Unlock()
	ids, err := s.client.PersistedQuery.Query().
		Order(ent.Desc(persistedquery.FieldLastUsedAt), ent.Desc(persistedquery.FieldID)).
		Offset(s.opts.MaxRows).Limit(evictBatch).IDs(ctx)
	if err != nil || len(ids) == 0 {
		if err != nil {
			s.opts.Logger.WarnContext(ctx, "persisted query eviction failed", slog.String("error", err.Error()))
		}
		return
	}
	if _, err := s.client.PersistedQuery.Delete().Where(persistedquery.IDIn(ids...)).Exec(ctx); err != nil {
		s.opts.Logger.WarnContext(ctx, "persisted query eviction failed", slog.String("error", err.Error()))
	}
	for _, id := range ids {
		s.front.Remove(id)
	}
}

// Len returns the entries of the front cache and its bound, for the cache
// metrics.
func (s *Store) Len() (entries, bound int) { return s.front.Len(), s.opts.FrontSize }
