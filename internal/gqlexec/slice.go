// Package gqlexec holds what the generated GraphQL executor (graph/) calls
// in place of gqlgen's own runtime helpers, and the generation step that
// makes it do so (rewrite.go, run by the root generate.go after gqlgen).
//
// gqlgen renders every list of objects with graphql.MarshalSliceConcurrently:
// one goroutine per element, each growing a fresh stack on its first
// allocation. For a list whose elements resolve without waiting on
// anything (plain struct reads, fields that Ent loaded with the list, or
// resolvers that batch per operation rather than per element) that buys
// nothing and costs a goroutine, a stack and a WaitGroup per element.
// MarshalSlice renders such a list in order on the calling goroutine.
package gqlexec

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
)

// MarshalSlice renders the length elements of a list in order, on the
// calling goroutine. Its signature is graphql.MarshalSliceConcurrently's,
// so that generated code can call either; workerLimit is ignored (one
// element runs at a time). Each element gets its own field context with
// its index, as in gqlgen, and unless omitPanicHandler is set a panic in
// one element is recovered into a GraphQL error and a null element, as
// gqlgen does for a list of one.
func MarshalSlice(
	ctx context.Context,
	length int,
	workerLimit int64,
	omitPanicHandler bool,
	marshalElement func(ctx context.Context, i int) graphql.Marshaler,
) graphql.Array {
	_ = workerLimit
	ret := make(graphql.Array, length)
	if length == 0 {
		return ret
	}
	// One allocation for every element's field context and index.
	fcs := make([]graphql.FieldContext, length)
	idx := make([]int, length)
	for i := range length {
		idx[i] = i
		fcs[i].Index = &idx[i]
		childCtx := graphql.WithFieldContext(ctx, &fcs[i])
		if omitPanicHandler {
			ret[i] = marshalElement(childCtx, i)
			continue
		}
		ret[i] = marshalRecovered(childCtx, i, marshalElement)
	}
	return ret
}

// marshalRecovered renders element i, turning a panic into an error on
// the element's path and a null element.
func marshalRecovered(ctx context.Context, i int, marshalElement func(ctx context.Context, i int) graphql.Marshaler) (m graphql.Marshaler) {
	defer func() {
		if r := recover(); r != nil {
			graphql.AddError(ctx, graphql.Recover(ctx, r))
			m = graphql.Null
		}
	}()
	return marshalElement(ctx, i)
}

// NewDeferredGroup is graphql.NewDeferredGroup for an object whose
// collected fields are fields: when none of them is deferred (no @defer
// fragment reaches it, i.e. nearly always) the group is never written to,
// so it is returned empty, without the response path, field set and map
// gqlgen builds for every object it renders; otherwise it is gqlgen's.
func NewDeferredGroup(ctx context.Context, fields []graphql.CollectedField) graphql.DeferredGroup {
	for _, f := range fields {
		if f.IsDeferred() {
			return graphql.NewDeferredGroup(ctx)
		}
	}
	return graphql.DeferredGroup{Context: ctx}
}
