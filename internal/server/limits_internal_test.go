package server

import (
	"context"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/complexity"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/rules"

	"github.com/ragchat/ragchat/graph"
)

// validated parses and validates query against the API's schema, as gqlgen
// does before the limits run.
func validated(t *testing.T, query string) *ast.QueryDocument {
	t.Helper()
	es := graph.NewExecutableSchema(graph.Config{Complexity: complexityRoot()})
	doc, err := parser.ParseQuery(&ast.Source{Input: query})
	if err != nil {
		t.Fatal(err)
	}
	if errs := validator.ValidateWithRules(es.Schema(), doc, rules.NewDefaultRules()); len(errs) > 0 {
		t.Fatal(errs)
	}
	return doc
}

// TestLimitChecksVisitEachFragmentOnce runs the post-validation checks
// (depth, aliases, paging and complexity) on fragment bombs that the
// precheck would refuse first: each check visits every written selection
// at most once, so 40 fragments spreading the previous one twice cost a
// few hundred steps instead of 2^40, and the complexity still comes out
// over the limit.
func TestLimitChecksVisitEachFragmentOnce(t *testing.T) {
	es := graph.NewExecutableSchema(graph.Config{Complexity: complexityRoot()})
	cases := []struct {
		name    string
		query   string
		depth   int
		aliases int
		err     string // the paging error's limit, if any
	}{
		{"plain", fragmentBomb(40, "userId", ""), 2, 0, ""},
		{"aliases", fragmentBomb(40, "userId", "a$i: userId"), 2, 1<<40 - 1, ""},
		{"under a connection", strings.Replace(strings.ReplaceAll(fragmentBomb(40,
			"conversations(first: 100) { edges { node { id title } } }", ""), "on Viewer", "on Query"),
			"query Bomb { viewer { ...F40 } }", "query Bomb { ...F40 }", 1), 4, 0, ""},
		{"paging error deep inside", strings.Replace(strings.ReplaceAll(fragmentBomb(40,
			"conversations(first: -1) { totalCount }", ""), "on Viewer", "on Query"),
			"query Bomb { viewer { ...F40 } }", "query Bomb { ...F40 }", 1), 1, 0, "pageSize"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := validated(t, tc.query)
			op := doc.Operations[0]
			written := selectionsOf(doc)

			w := newShapeWalker(doc, nil, 100)
			sh := w.set(op.SelectionSet)
			if w.steps > written {
				t.Errorf("shape: %d steps for %d written selections", w.steps, written)
			}
			if sh.depth != tc.depth || sh.aliases != tc.aliases {
				t.Errorf("shape: depth %d aliases %d, want %d %d", sh.depth, sh.aliases, tc.depth, tc.aliases)
			}
			if tc.err != "" {
				if sh.err == nil || sh.err.Extensions["limit"] != tc.err {
					t.Fatalf("shape error %v, want limit %s", sh.err, tc.err)
				}
				return
			}
			if sh.err != nil {
				t.Fatalf("shape error %v", sh.err)
			}
			cost, steps := operationComplexity(context.Background(), es, doc, op, nil, 20000)
			if steps > written {
				t.Errorf("complexity: %d steps for %d written selections", steps, written)
			}
			if cost != 20001 {
				t.Errorf("complexity %d, want 20001 (over the limit)", cost)
			}
		})
	}
}

// TestComplexityMatchesGqlgen compares operationComplexity with gqlgen's
// complexity.Calculate on operations small enough for the latter: the
// memoised, capped calculation gives the same number below the cap.
func TestComplexityMatchesGqlgen(t *testing.T) {
	es := graph.NewExecutableSchema(graph.Config{Complexity: complexityRoot()})
	queries := []string{
		`{ viewer { userId roles } }`,
		`{ conversations(first: 10) { totalCount edges { node { id title messages(last: 5) { edges { node { content attempts { sources { label } } } } } } } } }`,
		`query($n: Int) { conversations(last: $n) { edges { node { ...C } } } } fragment C on Conversation { id ...D } fragment D on Conversation { title }`,
		`{ node(id: "x") { id ... on Conversation { title } } nodes(ids: ["a", "b", "c"]) { id } }`,
		fragmentBomb(8, "userId", ""),
		introspectionQuery,
	}
	for _, q := range queries {
		doc := validated(t, q)
		vars := map[string]any{"n": 7}
		want := complexity.Calculate(context.Background(), es, doc.Operations[0], vars)
		got, _ := operationComplexity(context.Background(), es, doc, doc.Operations[0], vars, 1<<30)
		if got != want {
			t.Errorf("%s: complexity %d, gqlgen says %d", q, got, want)
		}
	}
}

// TestShapeMatchesExpansion checks the memoised shape against a walk that
// expands every fragment.
func TestShapeMatchesExpansion(t *testing.T) {
	queries := []string{
		`{ a: viewer { userId } b: viewer { ...V } } fragment V on Viewer { x: userId y: tenantId }`,
		`{ conversations(first: 1) { edges { node { ...C } } } } fragment C on Conversation { id messages(first: 2) { edges { node { ...M } } } } fragment M on Message { content attempt: attempts { id } }`,
		fragmentBomb(6, "u: userId", "a$i: tenantId"),
	}
	for _, q := range queries {
		doc := validated(t, q)
		var depth, aliases int
		var walk func(ast.SelectionSet, int)
		walk = func(set ast.SelectionSet, d int) {
			for _, sel := range set {
				switch s := sel.(type) {
				case *ast.Field:
					if s.Alias != s.Name {
						aliases++
					}
					depth = max(depth, d)
					walk(s.SelectionSet, d+1)
				case *ast.InlineFragment:
					walk(s.SelectionSet, d)
				case *ast.FragmentSpread:
					walk(doc.Fragments.ForName(s.Name).SelectionSet, d)
				}
			}
		}
		walk(doc.Operations[0].SelectionSet, 1)
		sh := newShapeWalker(doc, nil, 100).set(doc.Operations[0].SelectionSet)
		if sh.depth != depth || sh.aliases != aliases || sh.err != nil {
			t.Errorf("%s: shape %+v, expansion depth %d aliases %d", q, sh, depth, aliases)
		}
	}
}
