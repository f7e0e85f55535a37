package resolvers

import (
	"context"

	"entgo.io/contrib/entgql"
	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"
)

// Cursor is the Relay cursor of every connection (UUID keyed).
type Cursor = entgql.Cursor[uuid.UUID]

// withoutUncountedPageInfo avoids a COUNT over the whole conversation when
// the client did not ask for totalCount. entgql's Paginate counts every
// row whenever pageInfo or totalCount is selected, although the page's
// limit+1 row already tells whether there is a previous or next page; on a
// long conversation that count costs more than the page itself. When
// totalCount is not selected, Paginate gets a field context without
// pageInfo (fragments flattened), so it skips the count and still fills
// PageInfo from the extra row; the response is marshalled from the
// original field context, pageInfo included.
func withoutUncountedPageInfo(ctx context.Context) context.Context {
	fc := graphql.GetFieldContext(ctx)
	oc := graphql.GetOperationContext(ctx)
	if fc == nil || oc == nil {
		return ctx
	}
	fields := graphql.CollectFields(oc, fc.Field.Selections, nil)
	var kept ast.SelectionSet
	for _, f := range fields {
		switch f.Name {
		case "totalCount":
			return ctx // counted on purpose
		case "pageInfo":
			continue
		}
		kept = append(kept, f.Field)
	}
	if len(kept) == len(fields) {
		return ctx
	}
	trimmed := *fc
	trimmed.Field.Selections = kept
	return graphql.WithFieldContext(ctx, &trimmed)
}
