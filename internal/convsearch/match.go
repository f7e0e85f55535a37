package convsearch

import (
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/ragchat/ragchat/internal/textsearch"
)

// matchP returns the predicate "the row of table matches every term":
// search_tokens @@ $q::tsquery on PostgreSQL (the GIN index), and on
// SQLite the row's id among the FTS5 table's matches (<table>_search,
// keyed by <table>_search_keys).
func matchP(s *sql.Selector, table string, terms []string) *sql.Predicate {
	if s.Dialect() == dialect.Postgres {
		return sql.P(func(b *sql.Builder) {
			b.Ident(s.C("search_tokens")).WriteString(" @@ ").Arg(textsearch.TSQuery(terms)).WriteString("::tsquery")
		})
	}
	fts, keys := table+"_search", table+"_search_keys"
	return sql.P(func(b *sql.Builder) {
		b.Ident(s.C("id")).WriteString(" IN (SELECT " + keys + ".id FROM " + fts + " JOIN " + keys +
			" ON " + keys + ".key = " + fts + ".rowid WHERE " + fts + " MATCH ").Arg(textsearch.FTS5Match(terms)).WriteString(")")
	})
}
