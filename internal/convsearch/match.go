package convsearch

import (
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/ragchat/ragchat/ent/searchentry"
	"github.com/ragchat/ragchat/internal/textsearch"
)

// matchP returns the predicate "the entry matches every term":
// search_tokens @@ $q::tsquery on PostgreSQL (the GIN index), and on
// SQLite the entry's id among the FTS5 table's matches (search_entries_search,
// keyed by search_entries_search_keys; internal/store).
func matchP(s *sql.Selector, terms []string) *sql.Predicate {
	if s.Dialect() == dialect.Postgres {
		return sql.P(func(b *sql.Builder) {
			b.Ident(s.C(searchentry.FieldSearchTokens)).WriteString(" @@ ").Arg(textsearch.TSQuery(terms)).WriteString("::tsquery")
		})
	}
	fts, keys := searchentry.Table+"_search", searchentry.Table+"_search_keys"
	return sql.P(func(b *sql.Builder) {
		b.Ident(s.C(searchentry.FieldID)).WriteString(" IN (SELECT " + keys + ".id FROM " + fts + " JOIN " + keys +
			" ON " + keys + ".key = " + fts + ".rowid WHERE " + fts + " MATCH ").Arg(textsearch.FTS5Match(terms)).WriteString(")")
	})
}
