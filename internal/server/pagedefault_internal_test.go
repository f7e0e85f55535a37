package server

import (
	"context"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/ragchat/ragchat/graph"
)

// TestPageDefaultsCopyTheCachedDocument checks that the default page size
// goes into a copy of the operation's document (the parsed document is
// shared by every request through the query cache) and that fragment
// spreads of the copy point at the copied fragments.
func TestPageDefaultsCopyTheCachedDocument(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	doc, errs := gqlparser.LoadQuery(schema, `
		fragment D on KnowledgeBase { documents { totalCount } }
		query Q($n: Int) { conversations(first: $n) { totalCount } knowledgeBases(last: 2) { edges { node { ...D } } } }
		query Other { conversations { totalCount } }`)
	if errs != nil {
		t.Fatal(errs)
	}
	op := doc.Operations.ForName("Q")
	opCtx := &graphql.OperationContext{Doc: doc, Operation: op, Variables: map[string]any{"n": nil}}
	if err := (pageDefaults{size: 7}).MutateOperationContext(context.Background(), opCtx); err != nil {
		t.Fatal(err)
	}
	if opCtx.Doc == doc || opCtx.Operation == op {
		t.Fatal("the shared document was not copied")
	}
	first := func(f *ast.Field) string {
		if a := f.Arguments.ForName("first"); a != nil {
			return a.Value.Raw
		}
		return ""
	}
	conv := func(o *ast.OperationDefinition) *ast.Field { return o.SelectionSet[0].(*ast.Field) }
	if got := first(conv(opCtx.Operation)); got != "7" {
		t.Errorf("conversations(first: $n = null) got first %q", got)
	}
	if got := conv(op).Arguments.ForName("first").Value.Kind; got != ast.Variable {
		t.Errorf("the cached operation changed: first is %v", got)
	}
	if a := opCtx.Operation.SelectionSet[1].(*ast.Field).Arguments; a.ForName("first") != nil || a.ForName("last").Value.Raw != "2" {
		t.Errorf("knowledgeBases(last: 2) changed: %+v", a)
	}
	spread := opCtx.Operation.SelectionSet[1].(*ast.Field).SelectionSet[0].(*ast.Field).SelectionSet[0].(*ast.Field).SelectionSet[0].(*ast.FragmentSpread)
	if spread.Definition != opCtx.Doc.Fragments.ForName("D") || spread.Definition == doc.Fragments.ForName("D") {
		t.Error("the spread does not point at the copied fragment")
	}
	if got := first(opCtx.Doc.Fragments.ForName("D").SelectionSet[0].(*ast.Field)); got != "7" {
		t.Errorf("documents in the fragment got first %q", got)
	}
	if doc.Fragments.ForName("D").SelectionSet[0].(*ast.Field).Arguments.ForName("first") != nil {
		t.Error("the cached fragment changed")
	}
	if other := opCtx.Doc.Operations.ForName("Other"); other != doc.Operations.ForName("Other") {
		t.Error("an operation this request does not run was copied")
	}

	// A document that gives every page size is left as it is.
	doc2, _ := gqlparser.LoadQuery(schema, `{ conversations(first: 1) { totalCount } }`)
	opCtx2 := &graphql.OperationContext{Doc: doc2, Operation: doc2.Operations[0]}
	_ = (pageDefaults{size: 7}).MutateOperationContext(context.Background(), opCtx2)
	if opCtx2.Doc != doc2 {
		t.Error("a document without missing page sizes was copied")
	}
}
