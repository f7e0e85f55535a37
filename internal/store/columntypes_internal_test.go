package store

import (
	"context"
	"database/sql"
	"testing"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/ctxflag"
)

// countingScanner counts the ColumnTypes calls that reach the rows.
type countingScanner struct {
	entsql.ColumnScanner
	calls int
}

func (c *countingScanner) ColumnTypes() ([]*sql.ColumnType, error) {
	c.calls++
	return nil, nil
}

// TestDescribeColumnsOnce: the rows of an entity query describe their
// columns once however often Ent asks; the rows of any other query (Ent's
// schema migration reads them back as *sql.Rows) are left as they are.
func TestDescribeColumnsOnce(t *testing.T) {
	t.Parallel()
	inner := &countingScanner{}
	rows := &entsql.Rows{ColumnScanner: inner}
	describeColumnsOnce(ctxflag.Set[entityQueryKey](context.Background()), rows)
	for range 5 {
		_, err := rows.ColumnTypes()
		require.NoError(t, err)
	}
	require.Equal(t, 1, inner.calls)

	other := &countingScanner{}
	plain := &entsql.Rows{ColumnScanner: other}
	describeColumnsOnce(context.Background(), plain)
	require.Same(t, other, plain.ColumnScanner, "rows of a query that is not an entity query stay unwrapped")
}
