package store

import (
	"context"
	"fmt"

	"github.com/ragchat/ragchat/ent"
)

// searchIndexNames are the GIN indexes on search_tokens, which SQLite
// does not have: its FTS5 tables (sqliteSearchDDL) are the index there.
var searchIndexNames = map[string]bool{
	"messages_search_tokens_gin":      true,
	"conversations_search_tokens_gin": true,
}

// sqliteSearchDDL creates, for messages and conversations, the FTS5 table
// that indexes search_tokens (contentless, tokenize='ascii' as
// textsearch.FTS5Tokenize requires) and the triggers that keep it in step
// with every insert, update of search_tokens and delete (a cascade from a
// purged conversation included), in the same transaction as the write.
// FTS5 rows are keyed by a table of stable integer keys (<table>_search_keys)
// because the implicit rowid of a table with a uuid primary key may change
// on VACUUM.
func sqliteSearchDDL(table string) []string {
	fts, keys := table+"_search", table+"_search_keys"
	insert := fmt.Sprintf(`INSERT INTO %[2]s(id) VALUES (new.id);
  INSERT INTO %[1]s(rowid, search_tokens) SELECT key, new.search_tokens FROM %[2]s WHERE id = new.id;`, fts, keys)
	remove := fmt.Sprintf(`INSERT INTO %[1]s(%[1]s, rowid, search_tokens) SELECT 'delete', key, old.search_tokens FROM %[2]s WHERE id = old.id;
  DELETE FROM %[2]s WHERE id = old.id;`, fts, keys)
	return []string{
		fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (key INTEGER PRIMARY KEY, id uuid NOT NULL UNIQUE)`, keys),
		fmt.Sprintf(`CREATE VIRTUAL TABLE IF NOT EXISTS %s USING fts5(search_tokens, content='', tokenize='ascii')`, fts),
		fmt.Sprintf(`CREATE TRIGGER IF NOT EXISTS %[1]s_insert AFTER INSERT ON %[2]s WHEN new.search_tokens IS NOT NULL BEGIN
  %[3]s
END`, fts, table, insert),
		fmt.Sprintf(`CREATE TRIGGER IF NOT EXISTS %[1]s_delete AFTER DELETE ON %[2]s WHEN old.search_tokens IS NOT NULL BEGIN
  %[3]s
END`, fts, table, remove),
		// One trigger for updates: SQLite's order of several is unspecified.
		fmt.Sprintf(`CREATE TRIGGER IF NOT EXISTS %[1]s_update AFTER UPDATE OF search_tokens ON %[2]s BEGIN
  INSERT INTO %[1]s(%[1]s, rowid, search_tokens) SELECT 'delete', key, old.search_tokens FROM %[3]s WHERE id = old.id AND old.search_tokens IS NOT NULL;
  DELETE FROM %[3]s WHERE id = old.id;
  INSERT INTO %[3]s(id) SELECT new.id WHERE new.search_tokens IS NOT NULL;
  INSERT INTO %[1]s(rowid, search_tokens) SELECT key, new.search_tokens FROM %[3]s WHERE id = new.id;
END`, fts, table, keys),
	}
}

// migrateSQLiteSearch creates the SQLite search tables and triggers.
func migrateSQLiteSearch(ctx context.Context, client *ent.Client) error {
	for _, table := range []string{"messages", "conversations"} {
		for _, q := range sqliteSearchDDL(table) {
			if _, err := client.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("store: SQLite search index on %s: %w", table, err)
			}
		}
	}
	return nil
}
