package store_test

import (
	"context"
	"strings"
	"testing"

	"entgo.io/ent/dialect"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/contenthash"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/tokens"
	"github.com/ragchat/ragchat/migrations"
)

// TestContentHashBackfill: chunks written before content hashes (their
// hash cleared here) get the hash internal/contenthash computes, on
// PostgreSQL by the content_hashes migration's backfill statements (run
// again) and on SQLite by MigrateSQLite at the next start; the demo's
// Chinese documents check that both hash the UTF-8 bytes.
func TestContentHashBackfill(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		svc := knowledge.NewService(db.Client, offline.New(offline.Options{}), tokens.Default(), knowledge.Options{})
		_, err := knowledge.LoadDemo(ctx, db.Client, svc)
		require.NoError(t, err)
		_, err = db.Client.ExecContext(ctx, `UPDATE chunks SET content_hash = NULL`)
		require.NoError(t, err)
		if db.Dialect == dialect.Postgres {
			up, err := migrations.FS.ReadFile("20261203105549_content_hashes.up.sql")
			require.NoError(t, err)
			_, backfill, ok := strings.Cut(string(up), "-- backfill")
			require.True(t, ok, "the migration has its backfill")
			_, err = db.Client.ExecContext(ctx, "-- backfill"+backfill)
			require.NoError(t, err)
		} else {
			require.NoError(t, store.MigrateSQLite(ctx, db.Client))
		}
		rows, err := db.Client.QueryContext(ctx, `SELECT content, content_hash FROM chunks`)
		require.NoError(t, err)
		defer rows.Close()
		n := 0
		for rows.Next() {
			var content string
			var hash *string
			require.NoError(t, rows.Scan(&content, &hash))
			require.NotNil(t, hash, "every chunk has a hash")
			assert.Equal(t, contenthash.Of(content), *hash)
			n++
		}
		require.NoError(t, rows.Err())
		assert.Positive(t, n)
	})
}
