package store

import "github.com/ragchat/ragchat/internal/cachesize"

// CacheSizes implements cachesize.Reporter: on PostgreSQL, the prepared
// statements and the statement texts counted until they are prepared
// (stmtcache.go). SQLite prepares nothing.
func (db *DB) CacheSizes() []cachesize.Size {
	if db.cache == nil {
		return nil
	}
	return []cachesize.Size{
		{Name: "db_prepared_statements", Entries: db.cache.stmts.Len(), Bound: preparedStatements},
		{Name: "db_seen_statements", Entries: db.cache.seen.Len(), Bound: seenStatements},
	}
}
