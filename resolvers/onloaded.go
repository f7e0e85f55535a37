package resolvers

import (
	"context"

	"github.com/ragchat/ragchat/ent"
)

// onLoaded is the query interceptor that hands loaded what each query
// that succeeds loads (its rows, or its row), in the query's context: how
// the operation's batches (sourceAuth, siblingBatch) learn the rows the
// operation read.
func onLoaded(loaded func(ctx context.Context, v ent.Value)) ent.Interceptor {
	return ent.InterceptFunc(func(next ent.Querier) ent.Querier {
		return ent.QuerierFunc(func(ctx context.Context, q ent.Query) (ent.Value, error) {
			v, err := next.Query(ctx, q)
			if err == nil {
				loaded(ctx, v)
			}
			return v, err
		})
	})
}
