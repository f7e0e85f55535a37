package server

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/99designs/gqlgen/complexity"
	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/ragchat/ragchat/internal/domain"
)

// queryLimits is a gqlgen extension that rejects an operation before it
// runs when it arrived over GET but is not a query, or when its shape
// exceeds a limit: complexity, depth (introspection
// fields excluded), aliases, or a connection page size. A connection
// field's `first` or `last` is at most MaxPageSize; without either, the
// default page size applies (pagedefault.go). Each refusal
// is BAD_USER_INPUT with extensions.limit naming the limit and
// extensions.max its value.
type queryLimits struct {
	maxComplexity int
	maxDepth      int
	maxAliases    int
	maxPageSize   int

	schema graphql.ExecutableSchema
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = (*queryLimits)(nil)

// ExtensionName implements graphql.HandlerExtension.
func (q *queryLimits) ExtensionName() string { return "QueryLimits" }

// Validate implements graphql.HandlerExtension.
func (q *queryLimits) Validate(schema graphql.ExecutableSchema) error {
	q.schema = schema
	return nil
}

// MutateOperationContext checks the operation's shape.
func (q *queryLimits) MutateOperationContext(ctx context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	op := opCtx.Operation
	if op == nil {
		return nil
	}
	if isGET(ctx) && op.Operation != ast.Query {
		e := gqlerror.Errorf("GET requests only allow queries; use POST, SSE or WebSocket")
		e.Extensions = map[string]any{"code": string(domain.CodeBadUserInput)}
		return e
	}
	w := shapeWalker{doc: opCtx.Doc, vars: opCtx.Variables, maxPage: q.maxPageSize}
	w.walk(op.SelectionSet, 1, map[string]bool{})
	switch {
	case w.err != nil:
		return w.err
	case w.depth > q.maxDepth:
		return limitError("depth", q.maxDepth, "the operation is nested %d levels deep; the limit is %d", w.depth, q.maxDepth)
	case w.aliases > q.maxAliases:
		return limitError("aliases", q.maxAliases, "the operation uses %d aliases; the limit is %d", w.aliases, q.maxAliases)
	}
	if c := complexity.Calculate(ctx, q.schema, op, opCtx.Variables); c > q.maxComplexity {
		return limitError("complexity", q.maxComplexity, "the operation has complexity %d; the limit is %d", c, q.maxComplexity)
	}
	return nil
}

func limitError(limit string, max int, format string, args ...any) *gqlerror.Error {
	e := gqlerror.Errorf(format, args...)
	e.Extensions = map[string]any{"code": string(domain.CodeBadUserInput), "limit": limit, "max": max}
	return e
}

// shapeWalker measures an operation's depth and aliases and checks its
// connection arguments.
type shapeWalker struct {
	doc     *ast.QueryDocument
	vars    map[string]any
	maxPage int

	depth   int
	aliases int
	err     *gqlerror.Error
}

func (w *shapeWalker) walk(set ast.SelectionSet, depth int, inFragments map[string]bool) {
	for _, sel := range set {
		if w.err != nil {
			return
		}
		switch s := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(s.Name, "__") {
				continue // introspection is exempt from depth and paging limits
			}
			if s.Alias != "" && s.Alias != s.Name {
				w.aliases++
			}
			w.depth = max(w.depth, depth)
			w.checkPaging(s)
			w.walk(s.SelectionSet, depth+1, inFragments)
		case *ast.InlineFragment:
			w.walk(s.SelectionSet, depth, inFragments)
		case *ast.FragmentSpread:
			if inFragments[s.Name] {
				continue // a cycle; validation reports it
			}
			if def := w.doc.Fragments.ForName(s.Name); def != nil {
				inFragments[s.Name] = true
				w.walk(def.SelectionSet, depth, inFragments)
				delete(inFragments, s.Name)
			}
		}
	}
}

// checkPaging checks first and last (not both, not negative, at most
// maxPage) on every connection field (one with first and last arguments).
func (w *shapeWalker) checkPaging(f *ast.Field) {
	if f.Definition == nil || f.Definition.Arguments.ForName("first") == nil || f.Definition.Arguments.ForName("last") == nil {
		return
	}
	args := f.ArgumentMap(w.vars)
	first, hasFirst := intArg(args["first"])
	last, hasLast := intArg(args["last"])
	name := f.Alias
	if name == "" {
		name = f.Name
	}
	switch {
	case !hasFirst && !hasLast:
		// The default page size applies (pageDefaults, pagedefault.go).
	case hasFirst && hasLast:
		w.err = limitError("pageSize", w.maxPage, "%s: pass first or last, not both", name)
	case first < 0 || last < 0:
		w.err = limitError("pageSize", w.maxPage, "%s: first and last must not be negative", name)
	case first > w.maxPage || last > w.maxPage:
		w.err = limitError("pageSize", w.maxPage, "%s: first and last must not exceed %d", name, w.maxPage)
	}
}

// intArg reads an Int argument value.
func intArg(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case float64:
		return int(n), true
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	}
	return 0, false
}
