// Package convsearch searches a viewer's conversations (issue 19): it keeps
// the search index (ent/schema.SearchEntry: an entry per message and per
// conversation title) in step with the rows it mirrors (Install,
// IndexFirstTitle, Backfill for rows written before it), and finds the
// conversations whose title or messages contain every term of a query,
// ranked in the database, on PostgreSQL (a GIN-indexed tsvector) and
// SQLite (an FTS5 table fed by triggers), with the same hits.
// Tokenisation is internal/textsearch's. The package knows nothing of
// GraphQL.
package convsearch
