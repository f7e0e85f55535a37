package testdb_test

import (
	"testing"

	"entgo.io/ent/dialect"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/testdb"
)

func TestBackendsDescribeBothDatabases(t *testing.T) {
	t.Setenv(testdb.EnvBackends, "")
	backends := testdb.Backends(t)
	require.Len(t, backends, 2)
	tests := []struct {
		name, dialect, driver string
	}{
		{"postgres", dialect.Postgres, "postgres"},
		{"sqlite", dialect.SQLite, "sqlite"},
	}
	for i, tt := range tests {
		b := backends[i]
		assert.Equal(t, tt.name, b.Name)
		assert.Equal(t, tt.dialect, b.Dialect)
		assert.Equal(t, tt.driver, b.Driver)
		assert.NotEmpty(t, b.DSN)
	}
}

// TestBackendsSharedSuite runs one suite on both backends the way other
// packages do; its subtests are what the test summary counts per backend.
func TestBackendsSharedSuite(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			db := b.Open(t)
			_, err := db.Exec("CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
			require.NoError(t, err)
			_, err = db.Exec("INSERT INTO note (id, body) VALUES (1, 'hello'), (2, 'world')")
			require.NoError(t, err)
			var n int
			require.NoError(t, db.QueryRow("SELECT count(*) FROM note WHERE body LIKE 'w%'").Scan(&n))
			assert.Equal(t, 1, n)
		})
	}
}
