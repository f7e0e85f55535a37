package store_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"entgo.io/ent/dialect/sql/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/testdb"
)

// TestMigrationsMatchSchema applies the versioned migrations to an empty
// PostgreSQL database and asks Ent what it would still change to reach the
// schema: nothing, or the migration directory has drifted (run
// `make migration NAME=…`).
func TestMigrationsMatchSchema(t *testing.T) {
	url := testdb.PostgresURL(t)
	t.Run("postgres", func(t *testing.T) {
		ctx := context.Background()
		db, err := store.Open(ctx, store.Config{DatabaseURL: url, Migrate: true})
		require.NoError(t, err)
		defer db.Close()

		var plan bytes.Buffer
		require.NoError(t, db.Client.Schema.WriteTo(ctx, &plan,
			schema.WithDropColumn(true), schema.WithDropIndex(true)))
		var changes []string
		for _, line := range strings.Split(plan.String(), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || line == "BEGIN;" || line == "COMMIT;" || strings.HasPrefix(line, "--") {
				continue
			}
			changes = append(changes, line)
		}
		assert.Empty(t, changes, "the Ent schema and migrations/ differ; generate a migration")

		version, dirty, err := store.MigrationVersion(ctx, db.SQL)
		require.NoError(t, err)
		assert.False(t, dirty)
		assert.NotZero(t, version)

		// Applying again is a no-op.
		require.NoError(t, store.MigratePostgres(ctx, db.SQL))
	})
}
