package store

import (
	"context"
	"fmt"

	"github.com/ragchat/ragchat/ent"
)

// searchIndexNames are the GIN indexes on search_tokens, which SQLite
// does not have: its FTS5 table (sqliteSearchDDL) is the index there.
var searchIndexNames = map[string]bool{
	"search_entries_search_tokens_gin": true,
}

// searchTable is the table of the conversation search index
// (ent/schema.SearchEntry).
const searchTable = "search_entries"

// retiredSearchDDL drops what an earlier schema kept on SQLite: FTS5
// tables and triggers on the search_tokens columns of messages and
// conversations, whose entries now live in search_entries (Backfill in
// internal/convsearch indexes the rows they held). The columns themselves
// stay, unread, as Ent's SQLite migration never drops a column.
func retiredSearchDDL() []string {
	var ddl []string
	for _, table := range []string{"messages", "conversations"} {
		fts := table + "_search"
		for _, op := range []string{"insert", "delete", "update"} {
			ddl = append(ddl, fmt.Sprintf(`DROP TRIGGER IF EXISTS %s_%s`, fts, op))
		}
		ddl = append(ddl, fmt.Sprintf(`DROP TABLE IF EXISTS %s`, fts), fmt.Sprintf(`DROP TABLE IF EXISTS %s_keys`, fts))
	}
	return ddl
}

// sqliteSearchDDL creates, for the search index's table, the FTS5 table
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

// migrateSQLiteSearch drops the retired search tables and triggers and
// creates the search index's FTS5 table and triggers.
func migrateSQLiteSearch(ctx context.Context, client *ent.Client) error {
	for _, q := range append(retiredSearchDDL(), sqliteSearchDDL(searchTable)...) {
		if _, err := client.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("store: SQLite search index: %w", err)
		}
	}
	return nil
}
