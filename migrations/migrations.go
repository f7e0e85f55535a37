// Package migrations embeds the versioned PostgreSQL migrations (golang-migrate
// format, generated from the Ent schema by `make migration NAME=…`; the
// first file, which creates the pgvector extension, is written by hand).
package migrations

import "embed"

// FS holds the *.sql migration files.
//
//go:embed *.sql
var FS embed.FS
