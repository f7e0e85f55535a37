// Package convsearch searches a viewer's conversations (issue 19): it keeps
// the search_tokens columns of messages and conversation titles in step
// with their text (Install), and finds the conversations whose title or
// messages contain every term of a query, on PostgreSQL (a GIN-indexed
// tsvector) and SQLite (FTS5 tables fed by triggers), with the same hits.
// Tokenisation is internal/textsearch's. The package knows nothing of
// GraphQL.
package convsearch
