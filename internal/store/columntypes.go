package store

import (
	"context"
	"database/sql"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/ctxflag"
)

// columnTypesOnce is a result set that describes its columns once.
// Ent scans a column it has no field for (a window's joined attempt
// status, a search's score) through sql.ScanTypeOf, which asks the rows
// for their ColumnTypes for every such column of every row, and
// database/sql builds the whole description anew on each call: 12 % of
// the objects an ask allocated (docs/BENCHMARKS.md, "Issue 33"). A result
// set's columns do not change between its rows, so the first answer
// serves them all.
type columnTypesOnce struct {
	entsql.ColumnScanner
	types []*sql.ColumnType
	err   error
	done  bool
}

// ColumnTypes returns the result set's column types, asking the rows
// once.
func (c *columnTypesOnce) ColumnTypes() ([]*sql.ColumnType, error) {
	if !c.done {
		c.types, c.err = c.ColumnScanner.ColumnTypes()
		c.done = true
	}
	return c.types, c.err
}

// entityQueryKey marks the context of an entity query (a generated
// builder's All, Only, Count...; describeColumnsOnce wraps only its rows).
// Ent's schema package, which migrations use, reads its rows back as
// *sql.Rows, and never passes through a query interceptor.
type entityQueryKey struct{}

// markEntityQueries is the interceptor NewClient installs on every client:
// it marks the context of each entity query for describeColumnsOnce.
func markEntityQueries() ent.Interceptor {
	return ent.InterceptFunc(func(next ent.Querier) ent.Querier {
		return ent.QuerierFunc(func(ctx context.Context, q ent.Query) (ent.Value, error) {
			return next.Query(ctxflag.Set[entityQueryKey](ctx), q)
		})
	})
}

// describeColumnsOnce makes the rows an entity query filled describe
// their columns once (v is the query's destination; anything but Ent's
// rows, and the rows of any other query, are left alone).
func describeColumnsOnce(ctx context.Context, v any) {
	if !ctxflag.IsSet[entityQueryKey](ctx) {
		return
	}
	if r, ok := v.(*entsql.Rows); ok && r.ColumnScanner != nil {
		r.ColumnScanner = &columnTypesOnce{ColumnScanner: r.ColumnScanner}
	}
}
