package server

import (
	"context"
	"encoding/json"
	"math"
	"strings"

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

// MutateOperationContext checks the operation's shape, then its
// complexity. Both checks visit each fragment once (see shapeWalker and
// operationComplexity), so their work is linear in the document's size;
// documentPrecheck has bounded the document before validation.
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
	w := newShapeWalker(opCtx.Doc, opCtx.Variables, q.maxPageSize)
	sh := w.set(op.SelectionSet)
	switch {
	case sh.err != nil:
		return sh.err
	case sh.depth > q.maxDepth:
		return limitError("depth", q.maxDepth, "the operation is nested %d levels deep; the limit is %d", sh.depth, q.maxDepth)
	case sh.aliases > q.maxAliases:
		return limitError("aliases", q.maxAliases, "the operation uses %d aliases; the limit is %d", sh.aliases, q.maxAliases)
	}
	if c, _ := operationComplexity(ctx, q.schema, opCtx.Doc, op, opCtx.Variables, q.maxComplexity); c > q.maxComplexity {
		return limitError("complexity", q.maxComplexity, "the operation has complexity over %d (the limit)", q.maxComplexity)
	}
	return nil
}

func limitError(limit string, max int, format string, args ...any) *gqlerror.Error {
	e := gqlerror.Errorf(format, args...)
	e.Extensions = map[string]any{"code": string(domain.CodeBadUserInput), "limit": limit, "max": max}
	return e
}

// shape is what shapeWalker measures of a selection set: the depth of its
// deepest field (its own fields are at depth 1), its aliases (counted once
// per expansion of the fragments they sit in) and the first paging error
// in document order.
type shape struct {
	depth   int
	aliases int
	err     *gqlerror.Error
}

// merge adds the shape of a selection set whose fields sit at depth
// offset+1 relative to s.
func (s *shape) merge(o shape, offset int) {
	if o.depth > 0 {
		s.depth = max(s.depth, o.depth+offset)
	}
	s.aliases = saturatingAdd(s.aliases, o.aliases)
	if s.err == nil {
		s.err = o.err
	}
}

// shapeWalker measures an operation's depth and aliases and checks its
// connection arguments. It measures each fragment once and reuses the
// result wherever the fragment is spread, so a fragment spread twice in
// each of n fragments costs n visits, not 2^n.
type shapeWalker struct {
	vars    map[string]any
	maxPage int

	frags  map[string]*ast.FragmentDefinition
	memo   map[string]shape
	onPath map[string]bool // fragments being measured (a cycle adds nothing; validation refuses it)
	steps  int             // selections visited
}

func newShapeWalker(doc *ast.QueryDocument, vars map[string]any, maxPage int) *shapeWalker {
	return &shapeWalker{vars: vars, maxPage: maxPage, frags: fragmentIndex(doc), memo: map[string]shape{}, onPath: map[string]bool{}}
}

// set measures a selection set; introspection fields are exempt from the
// depth and paging limits. It stops at the first paging error.
func (w *shapeWalker) set(set ast.SelectionSet) shape {
	var out shape
	for _, sel := range set {
		if out.err != nil {
			return out
		}
		w.steps++
		switch s := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(s.Name, "__") {
				continue
			}
			if s.Alias != "" && s.Alias != s.Name {
				out.aliases = saturatingAdd(out.aliases, 1)
			}
			out.depth = max(out.depth, 1)
			if out.err = w.checkPaging(s); out.err != nil {
				return out
			}
			out.merge(w.set(s.SelectionSet), 1)
		case *ast.InlineFragment:
			out.merge(w.set(s.SelectionSet), 0)
		case *ast.FragmentSpread:
			out.merge(w.fragment(s.Name), 0)
		}
	}
	return out
}

// fragment measures a named fragment once.
func (w *shapeWalker) fragment(name string) shape {
	if sh, ok := w.memo[name]; ok {
		return sh
	}
	def := w.frags[name]
	if def == nil || w.onPath[name] {
		return shape{}
	}
	w.onPath[name] = true
	sh := w.set(def.SelectionSet)
	delete(w.onPath, name)
	w.memo[name] = sh
	return sh
}

// saturatingAdd adds two non-negative counts without overflowing.
func saturatingAdd(a, b int) int {
	if b > math.MaxInt-a {
		return math.MaxInt
	}
	return a + b
}

// checkPaging checks first and last (not both, not negative, at most
// maxPage) on every connection field (one with first and last arguments).
func (w *shapeWalker) checkPaging(f *ast.Field) *gqlerror.Error {
	if f.Definition == nil || f.Definition.Arguments.ForName("first") == nil || f.Definition.Arguments.ForName("last") == nil {
		return nil
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
		return limitError("pageSize", w.maxPage, "%s: pass first or last, not both", name)
	case first < 0 || last < 0:
		return limitError("pageSize", w.maxPage, "%s: first and last must not be negative", name)
	case first > w.maxPage || last > w.maxPage:
		return limitError("pageSize", w.maxPage, "%s: first and last must not exceed %d", name, w.maxPage)
	}
	return nil
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
