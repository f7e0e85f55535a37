package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// fragmentBomb is a document of n+1 fragments where each fragment spreads
// the previous one twice: spread out, it stands for 2^n copies of the
// first fragment's field (the shape of the 1.4 KB query). body0 is
// the first fragment's selection; extra is added to every other one ($i is
// the fragment's number).
func fragmentBomb(n int, body0, extra string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "query Bomb { viewer { ...F%d } }\n", n)
	fmt.Fprintf(&b, "fragment F0 on Viewer { %s }\n", body0)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "fragment F%d on Viewer { %s ...F%d ...F%d }\n", i, strings.ReplaceAll(extra, "$i", fmt.Sprint(i)), i-1, i-1)
	}
	return b.String()
}

// treeBomb is a document of n+1 fragments where each fragment spreads the
// previous one under two fields with different aliases: no response path
// repeats, but spread out it stands for 2^n selections. (Only the
// precheck sees it; its fields need not exist.)
func treeBomb(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{ ...T%d }\n", n)
	b.WriteString("fragment T0 on Query { __typename }\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "fragment T%d on Query { a: node { ...T%d } b: node { ...T%d } }\n", i, i-1, i-1)
	}
	return b.String()
}

// introspectionQuery is the query GraphiQL and codegen tools send.
const introspectionQuery = `query IntrospectionQuery {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types { ...FullType }
    directives { name description locations args { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType {
  kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }`

// selectionsOf counts the selections written in a document, fragments
// not expanded.
func selectionsOf(doc *ast.QueryDocument) int {
	var count func(ast.SelectionSet) int
	count = func(set ast.SelectionSet) int {
		n := 0
		for _, sel := range set {
			n++
			switch s := sel.(type) {
			case *ast.Field:
				n += count(s.SelectionSet)
			case *ast.InlineFragment:
				n += count(s.SelectionSet)
			}
		}
		return n
	}
	n := 0
	for _, op := range doc.Operations {
		n += count(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		n += count(f.SelectionSet)
	}
	return n
}

// TestDocumentPrecheckIsLinear checks documents against the bounds that
// run before validation: each refusal names its limit, and the number of
// selections visited is at most the document's own selections plus the
// expansion budget, however many selections the document stands for
// (2^40 for the 40-fragment bomb).
func TestDocumentPrecheckIsLinear(t *testing.T) {
	b := defaultDocumentBounds
	var manyFragments, manySpreads, manyFields strings.Builder
	manyFragments.WriteString("{ viewer { userId } }\n")
	for i := range b.maxFragments + 1 {
		fmt.Fprintf(&manyFragments, "fragment G%d on Viewer { userId }\n", i)
	}
	manySpreads.WriteString("{ viewer { ")
	for i := range b.maxSpreads + 1 {
		fmt.Fprintf(&manySpreads, "...G%d ", i%3)
	}
	manySpreads.WriteString("} } fragment G0 on Viewer { userId } fragment G1 on Viewer { roles } fragment G2 on Viewer { groups }")
	// Distinct response names (no repeated path), more selections once the
	// fragment is spread than the budget, far fewer written.
	const perFragment = 60
	manyFields.WriteString("{ ")
	for i := range b.maxSelections/perFragment + 1 {
		fmt.Fprintf(&manyFields, "v%d: viewer { ...Many } ", i)
	}
	manyFields.WriteString("} fragment Many on Viewer { ")
	for i := range perFragment {
		fmt.Fprintf(&manyFields, "a%d: userId ", i)
	}
	manyFields.WriteString("}")

	cases := []struct {
		name, query, limit string
	}{
		// A bomb repeats its first fragment's fields: the repeat bound
		// refuses it once they reach the limit, after a few dozen steps.
		{"fragment bomb n=40", fragmentBomb(40, "userId", ""), "repeatedFields"},
		{"fragment bomb n=24 with aliases", fragmentBomb(24, "userId", "a$i: tenantId"), "repeatedFields"},
		{"fragment bomb on Query", strings.Replace(strings.ReplaceAll(fragmentBomb(40, "viewer { userId }", ""), "on Viewer", "on Query"),
			"query Bomb { viewer { ...F40 } }", "query Bomb { ...F40 }", 1), "repeatedFields"},
		{"fragment bomb in an unused fragment", "{ viewer { userId } }\n" + strings.SplitN(fragmentBomb(40, "userId", ""), "\n", 2)[1], "repeatedFields"},
		{"fragment tree (no repeated path)", treeBomb(20), "selections"},
		{"fragment cycles", `{ viewer { ...A } } fragment A on Viewer { userId ...B ...C } fragment B on Viewer { userId ...A ...C }
			fragment C on Viewer { userId ...A ...B }`, ""},
		{"too many fragments", manyFragments.String(), "fragments"},
		{"too many spreads in one selection set", manySpreads.String(), "fragmentSpreads"},
		{"too many selections", manyFields.String(), "selections"},
		{"one field repeated", "{ viewer { " + strings.Repeat("userId ", b.maxRepeats+1) + "} }", "repeatedFields"},
		{"one object repeated", "{ " + strings.Repeat("viewer { userId } ", b.maxRepeats+1) + "}", "repeatedFields"},
		{"repeats through fragments", "{ viewer { ...R ...R } } fragment R on Viewer { " + strings.Repeat("userId ", b.maxRepeats/2+1) + "}", "repeatedFields"},
		{"introspection", introspectionQuery, ""},
		{"fields repeated up to the limit", "{ viewer { " + strings.Repeat("userId ", b.maxRepeats) + "} }", ""},
		{"an ordinary client query", `query Chat($c: ID!) { conversation(id: $c) { id title ...Msgs } }
			fragment Msgs on Conversation { messages(last: 20) { edges { node { id role content ...Att } } } }
			fragment Att on Message { attempts { id status answer sources { label snippet } } }`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: tc.query}, parserTokenLimit)
			if err != nil {
				t.Fatal(err)
			}
			e, steps := checkDocument(doc, b)
			switch {
			case tc.limit == "" && e != nil:
				t.Fatalf("refused: %v", e)
			case tc.limit != "" && e == nil:
				t.Fatalf("accepted; want limit %s", tc.limit)
			case tc.limit != "" && (e.Extensions["limit"] != tc.limit || e.Extensions["code"] != "BAD_USER_INPUT" || e.Extensions["max"] == nil):
				t.Fatalf("refused with %v %v, want limit %s", e, e.Extensions, tc.limit)
			}
			if bound := selectionsOf(doc) + b.maxSelections + 1; steps > bound {
				t.Fatalf("%d steps, want at most %d", steps, bound)
			}
		})
	}
	t.Run("the 40-fragment bomb costs a few hundred steps", func(t *testing.T) {
		doc, err := parser.ParseQuery(&ast.Source{Input: fragmentBomb(40, "userId", "")})
		if err != nil {
			t.Fatal(err)
		}
		// 83 written selections, then 31 expansions of F0's field.
		if _, steps := checkDocument(doc, b); steps > 300 {
			t.Fatalf("%d steps", steps)
		}
	})
}

// TestAnonymousOperationsSelectOnlyIntrospection decides which operations
// need a viewer before validation runs.
func TestAnonymousOperationsSelectOnlyIntrospection(t *testing.T) {
	cases := []struct {
		query, operation string
		data             bool
	}{
		{"{ __schema { queryType { name } } }", "", false},
		{"{ __typename }", "", false},
		{"{ __typename viewer { userId } }", "", true},
		{"{ ...Q } fragment Q on Query { __typename ...R } fragment R on Query { viewer { userId } }", "", true},
		{"{ ... on Query { viewer { userId } } }", "", true},
		{"{ ...Q } fragment Q on Query { ...Q }", "", false},
		{"query A { __typename } query B { viewer { userId } }", "A", false},
		{"query A { __typename } query B { viewer { userId } }", "B", true},
		{"query A { __typename } query B { viewer { userId } }", "C", false},
		{fragmentBomb(40, "userId", ""), "", true},
		// A share link's reader needs no viewer; nothing else beside it.
		{`{ sharedConversation(token: "t") { title } }`, "", false},
		{`{ s: sharedConversation(token: "t") { title } __typename }`, "", false},
		{`{ sharedConversation(token: "t") { title } viewer { userId } }`, "", true},
		{`{ sharedConversation(token: "t") { title } myShareLinks { totalCount } }`, "", true},
	}
	for _, tc := range cases {
		doc, err := parser.ParseQuery(&ast.Source{Input: tc.query})
		if err != nil {
			t.Fatal(err)
		}
		if got := selectsDataFields(doc, tc.operation); got != tc.data {
			t.Errorf("%s (%s): selects data %v, want %v", tc.query, tc.operation, got, tc.data)
		}
	}
}
