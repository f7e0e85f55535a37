package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/ragchat/ragchat/internal/textsearch"
)

// searchTokensField is the search_tokens column of messages (their content)
// and conversations (their title): the text's search terms and the owner's
// term (internal/convsearch), a tsvector on PostgreSQL and the FTS5Document
// text an FTS5 table is fed from by triggers on SQLite. An Ent hook that
// the store installs where it opens the client sets it on every create and
// title change, so a row is searchable once its transaction commits. It is
// never exposed through GraphQL.
func searchTokensField() ent.Field {
	return field.Other("search_tokens", textsearch.Indexed("")).
		SchemaType(map[string]string{dialect.Postgres: "tsvector", dialect.SQLite: "text"}).
		Optional().Sensitive().
		Comment("Search terms of the text and the owner (internal/convsearch); set by the store's hook.").
		Annotations(entgql.Skip(entgql.SkipAll))
}

// searchTokensIndex is the GIN index on search_tokens (PostgreSQL; the
// SQLite schema setup leaves it out, its FTS5 tables are the index there).
func searchTokensIndex(name string) ent.Index {
	return index.Fields("search_tokens").StorageKey(name).
		Annotations(entsql.IndexTypes(map[string]string{dialect.Postgres: "GIN"}))
}
