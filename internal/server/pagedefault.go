package server

import (
	"context"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// DefaultPageSize is the page size of a connection queried without first
// or last: it reads as first: DefaultPageSize (capped by the configured
// maximum page size), so that `messages { ... }` answers the first page,
// with pageInfo.hasNextPage, instead of failing the whole query
// (docs/API.md, "Paging").
const DefaultPageSize = 20

// backwardConnections are the connection fields that page backward from
// their end (Conversation.currentPath, from the branch's leaf): without
// first or last they read as last: DefaultPageSize, the newest page.
var backwardConnections = map[string]bool{"Conversation.currentPath": true}

// pageDefaults is a gqlgen extension that gives every connection field (a
// field with first and last arguments) that has neither, after variables,
// the argument first: size. It runs before the limits check, so every
// later stage sees the same page: the page-size and complexity checks,
// entgql's field collection (which reads arguments from the document, also
// for nested connections it loads in one query), the resolvers and the
// connection's pageInfo.
//
// The parsed document is shared through the query cache, so it is never
// changed in place: an operation that needs a default runs on a copy of
// its document. Operations that give every page size (the usual case)
// cost one linear scan of the document and no copy.
type pageDefaults struct {
	size int
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = pageDefaults{}

// ExtensionName implements graphql.HandlerExtension.
func (pageDefaults) ExtensionName() string { return "PageDefaults" }

// Validate implements graphql.HandlerExtension.
func (pageDefaults) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationContext gives the operation its default page sizes.
func (p pageDefaults) MutateOperationContext(_ context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	if opCtx.Operation == nil || opCtx.Doc == nil || p.size <= 0 {
		return nil
	}
	if !p.needed(opCtx) {
		return nil
	}
	opCtx.Doc, opCtx.Operation = p.apply(opCtx.Doc, opCtx.Operation, opCtx.Variables)
	return nil
}

// needed reports whether a connection field of the operation or of a
// fragment lacks a page size. Each selection of the document is visited
// once: fragment spreads are not followed, fragments are scanned as
// written.
func (p pageDefaults) needed(opCtx *graphql.OperationContext) bool {
	if p.lacksIn(opCtx.Operation.SelectionSet, opCtx.Variables) {
		return true
	}
	for _, f := range opCtx.Doc.Fragments {
		if p.lacksIn(f.SelectionSet, opCtx.Variables) {
			return true
		}
	}
	return false
}

func (p pageDefaults) lacksIn(set ast.SelectionSet, vars map[string]any) bool {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if lacksPageSize(s, vars) || p.lacksIn(s.SelectionSet, vars) {
				return true
			}
		case *ast.InlineFragment:
			if p.lacksIn(s.SelectionSet, vars) {
				return true
			}
		}
	}
	return false
}

// lacksPageSize reports a connection field whose first and last are both
// absent or null.
func lacksPageSize(f *ast.Field, vars map[string]any) bool {
	if f.Definition == nil || f.Definition.Arguments.ForName("first") == nil || f.Definition.Arguments.ForName("last") == nil {
		return false
	}
	args := f.ArgumentMap(vars)
	return args["first"] == nil && args["last"] == nil
}

// apply returns a copy of doc, and of op within it, in which every
// connection field without a page size has first: p.size. The other
// operations of doc, which this request does not run, are shared.
func (p pageDefaults) apply(doc *ast.QueryDocument, op *ast.OperationDefinition, vars map[string]any) (*ast.QueryDocument, *ast.OperationDefinition) {
	c := copier{size: p.size, vars: vars, fragments: make(map[string]*ast.FragmentDefinition, len(doc.Fragments))}
	out := *doc
	out.Fragments = make(ast.FragmentDefinitionList, len(doc.Fragments))
	for i, f := range doc.Fragments {
		cp := *f
		out.Fragments[i] = &cp
		c.fragments[f.Name] = &cp
	}
	for _, f := range out.Fragments {
		f.SelectionSet = c.selections(f.SelectionSet)
	}
	opCopy := *op
	opCopy.SelectionSet = c.selections(op.SelectionSet)
	out.Operations = make(ast.OperationList, len(doc.Operations))
	for i, o := range doc.Operations {
		if o == op {
			out.Operations[i] = &opCopy
		} else {
			out.Operations[i] = o
		}
	}
	return &out, &opCopy
}

// copier copies selection sets, adding default page sizes.
type copier struct {
	size      int
	vars      map[string]any
	fragments map[string]*ast.FragmentDefinition
}

func (c copier) selections(set ast.SelectionSet) ast.SelectionSet {
	if set == nil {
		return nil
	}
	out := make(ast.SelectionSet, len(set))
	for i, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			f := *s
			if lacksPageSize(s, c.vars) {
				f.Arguments = c.withFirst(s)
			}
			f.SelectionSet = c.selections(s.SelectionSet)
			out[i] = &f
		case *ast.InlineFragment:
			f := *s
			f.SelectionSet = c.selections(s.SelectionSet)
			out[i] = &f
		case *ast.FragmentSpread:
			f := *s
			if def, ok := c.fragments[s.Name]; ok {
				f.Definition = def
			}
			out[i] = &f
		default:
			out[i] = sel
		}
	}
	return out
}

// withFirst returns f's arguments without first and last (both null) and
// with first: c.size (last: c.size for a backward connection).
func (c copier) withFirst(f *ast.Field) ast.ArgumentList {
	name := "first"
	if f.ObjectDefinition != nil && backwardConnections[f.ObjectDefinition.Name+"."+f.Name] {
		name = "last"
	}
	args := make(ast.ArgumentList, 0, len(f.Arguments)+1)
	for _, a := range f.Arguments {
		if a.Name != "first" && a.Name != "last" {
			args = append(args, a)
		}
	}
	return append(args, &ast.Argument{
		Name: name,
		Value: &ast.Value{Kind: ast.IntValue, Raw: strconv.Itoa(c.size), Position: f.Position,
			ExpectedType: f.Definition.Arguments.ForName(name).Type},
		Position: f.Position,
	})
}
