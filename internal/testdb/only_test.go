package testdb_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ragchat/ragchat/internal/testdb"
)

// TestEnvBackendsSelectsTheSuites checks that RAGCHAT_TEST_BACKENDS narrows
// Backends and MigratedBackends to one backend, and that a PostgreSQL-only
// test skips when it selects SQLite (the race pass of make test ran it).
func TestEnvBackendsSelectsTheSuites(t *testing.T) {
	empty := func(context.Context, string) error { return nil }
	tests := []struct {
		only       string
		want       []string
		postgresOK bool
	}{
		{only: "", want: []string{"postgres", "sqlite"}, postgresOK: true},
		{only: "postgres", want: []string{"postgres"}, postgresOK: true},
		{only: "sqlite", want: []string{"sqlite"}},
	}
	for _, tt := range tests {
		t.Run("only="+tt.only, func(t *testing.T) {
			t.Setenv(testdb.EnvBackends, tt.only)
			assert.Equal(t, tt.want, names(testdb.Backends(t)), "Backends")
			assert.Equal(t, tt.want, names(testdb.MigratedBackends(t, "envbackends", empty)), "MigratedBackends")

			var got string
			skipped := !t.Run("PostgresURL", func(t *testing.T) { got = testdb.PostgresURL(t) }) || got == ""
			assert.Equal(t, !tt.postgresOK, skipped, "PostgresURL skipped")
		})
	}
}

func names(bs []testdb.Backend) []string {
	out := make([]string, 0, len(bs))
	for _, b := range bs {
		out = append(out, b.Name)
	}
	return out
}
