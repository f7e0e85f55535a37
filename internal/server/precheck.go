package server

import (
	"context"
	"crypto/sha256"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

// documentBounds bound the shape of a query document before GraphQL
// validation runs. Validation compares every pair of fields that share a
// response path (the OverlappingFieldsCanBeMerged rule), so its cost grows
// with the square of such repeats, and fragments that spread each other
// multiply the selections a document stands for; these bounds keep both
// small, whatever the document's text.
type documentBounds struct {
	// maxFragments bounds the fragment definitions of a document.
	maxFragments int
	// maxSpreads bounds the fragment spreads of one selection set.
	maxSpreads int
	// maxSelections bounds the selections (fields, fragment spreads and
	// inline fragments) of the whole document with every fragment spread
	// replaced by the fragment's selections.
	maxSelections int
	// maxRepeats bounds the fields that share one response path (the same
	// response name under the same parent path) in that expansion.
	maxRepeats int
}

// defaultDocumentBounds are the server's document bounds (docs/API.md,
// Limits). An ordinary client operation, GraphiQL's introspection query
// included, stays far below each of them.
var defaultDocumentBounds = documentBounds{
	maxFragments:  100,
	maxSpreads:    32,
	maxSelections: 5000,
	maxRepeats:    30,
}

// documentPrecheck is a gqlgen extension that runs before gqlgen parses and
// validates an operation. It parses the document itself and refuses it
// (BAD_USER_INPUT with extensions.limit and extensions.max) when it exceeds
// the document bounds, and refuses an operation without a viewer that
// selects anything but introspection (UNAUTHENTICATED), so that neither a
// hostile document nor an anonymous client can make validation expensive.
// Its cost is linear in the document's size: every check stops once its
// bound is passed. Documents that pass are remembered, so a repeated query
// is parsed once, as gqlgen's own query cache does.
type documentPrecheck struct {
	bounds documentBounds
	passed *lruCache[bool] // digest of operation name + query → whether it selects data fields
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = (*documentPrecheck)(nil)

// newDocumentPrecheck returns the extension with the given bounds.
func newDocumentPrecheck(b documentBounds) *documentPrecheck {
	return &documentPrecheck{bounds: b, passed: newLRUCache[bool](precheckCacheSize)}
}

// ExtensionName implements graphql.HandlerExtension.
func (p *documentPrecheck) ExtensionName() string { return "DocumentPrecheck" }

// Validate implements graphql.HandlerExtension.
func (p *documentPrecheck) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationParameters checks the raw document.
func (p *documentPrecheck) MutateOperationParameters(ctx context.Context, params *graphql.RawParams) *gqlerror.Error {
	if params.Query == "" {
		return nil // an APQ hash without its query; the APQ extension answers
	}
	anonymous := viewer.FromContext(ctx) == nil
	sum := sha256.Sum256([]byte(params.OperationName + "\x00" + params.Query))
	key := string(sum[:]) // a digest: documents can be megabytes long
	if selectsData, ok := p.passed.Get(ctx, key); ok {
		if selectsData && anonymous {
			return errAuthenticationRequired()
		}
		return nil
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: params.Query}, parserTokenLimit)
	if err != nil {
		return nil // gqlgen reports the parse error
	}
	// Without a viewer only introspection runs: refuse anything else
	// before looking further into the document.
	selectsData := selectsDataFields(doc, params.OperationName)
	if selectsData && anonymous {
		return errAuthenticationRequired()
	}
	if e, _ := checkDocument(doc, p.bounds); e != nil {
		return e
	}
	p.passed.Add(ctx, key, selectsData)
	return nil
}

// authenticationRequired is the message of a refusal for want of a viewer.
const authenticationRequired = "authentication required: send Authorization: Bearer <token>"

// errAuthenticationRequired refuses an operation without a viewer.
func errAuthenticationRequired() *gqlerror.Error {
	return gqlErr(domain.CodeUnauthenticated, authenticationRequired, nil)
}

// anonymousRoots are the root query fields that answer without a viewer:
// sharedConversation, for PUBLIC share links (docs/API.md, "Share
// links"). It decides itself whom it answers; only Query has it.
var anonymousRoots = map[string]bool{"sharedConversation": true}

// anonymousRoot reports whether root field name runs without a viewer.
func anonymousRoot(name string) bool { return anonymousRoots[name] }

// selectsDataFields reports whether the named operation selects a root
// field other than introspection (__schema, __type, __typename) and the
// anonymous roots, looking through fragments. An unknown operation reports false: gqlgen refuses it.
func selectsDataFields(doc *ast.QueryDocument, operation string) bool {
	op := doc.Operations.ForName(operation)
	if op == nil {
		return false
	}
	frags := fragmentIndex(doc)
	seen := map[string]bool{}
	var walk func(ast.SelectionSet) bool
	walk = func(set ast.SelectionSet) bool {
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				if !strings.HasPrefix(s.Name, "__") && !anonymousRoot(s.Name) {
					return true
				}
			case *ast.InlineFragment:
				if walk(s.SelectionSet) {
					return true
				}
			case *ast.FragmentSpread:
				if def := frags[s.Name]; def != nil && !seen[s.Name] {
					seen[s.Name] = true
					if walk(def.SelectionSet) {
						return true
					}
				}
			}
		}
		return false
	}
	return walk(op.SelectionSet)
}

// fragmentIndex maps fragment names to their (first) definitions.
func fragmentIndex(doc *ast.QueryDocument) map[string]*ast.FragmentDefinition {
	m := make(map[string]*ast.FragmentDefinition, len(doc.Fragments))
	for _, f := range doc.Fragments {
		if _, dup := m[f.Name]; !dup {
			m[f.Name] = f
		}
	}
	return m
}

// checkDocument checks doc against b. It returns the first bound exceeded
// (nil when none is) and the number of selections it visited, which is at
// most the document's own selections plus b.maxSelections+1.
func checkDocument(doc *ast.QueryDocument, b documentBounds) (*gqlerror.Error, int) {
	c := docChecker{b: b, frags: fragmentIndex(doc), reached: map[string]bool{}, onPath: map[string]bool{}}
	if n := len(doc.Fragments); n > b.maxFragments {
		return limitError("fragments", b.maxFragments, "the document defines %d fragments; the limit is %d", n, b.maxFragments), 0
	}
	for _, op := range doc.Operations {
		if e := c.spreadsIn(op.SelectionSet); e != nil {
			return e, c.steps
		}
	}
	for _, f := range doc.Fragments {
		if e := c.spreadsIn(f.SelectionSet); e != nil {
			return e, c.steps
		}
	}
	// Expand every operation, then every fragment that no operation
	// reaches (validation checks those too), under one budget.
	for _, op := range doc.Operations {
		if e := c.expandRoot(op.SelectionSet); e != nil {
			return e, c.steps
		}
	}
	for _, f := range doc.Fragments {
		if !c.reached[f.Name] {
			c.reached[f.Name] = true
			c.onPath[f.Name] = true
			e := c.expandRoot(f.SelectionSet)
			delete(c.onPath, f.Name)
			if e != nil {
				return e, c.steps
			}
		}
	}
	return nil, c.steps
}

// docChecker holds the state of checkDocument.
type docChecker struct {
	b     documentBounds
	frags map[string]*ast.FragmentDefinition
	steps int // selections visited

	selections int             // selections expanded so far (the budget)
	reached    map[string]bool // fragments expanded at least once
	onPath     map[string]bool // fragments being expanded (cycle guard)
	paths      map[pathKey]int // response path ids of the current root
	repeats    []int           // fields per response path id
}

// pathKey names a response path: the parent path's id and a response name.
type pathKey struct {
	parent int
	name   string
}

// spreadsIn checks the fragment spreads of set and of its nested sets,
// without following spreads.
func (c *docChecker) spreadsIn(set ast.SelectionSet) *gqlerror.Error {
	spreads := 0
	for _, sel := range set {
		c.steps++
		switch s := sel.(type) {
		case *ast.Field:
			if e := c.spreadsIn(s.SelectionSet); e != nil {
				return e
			}
		case *ast.InlineFragment:
			if e := c.spreadsIn(s.SelectionSet); e != nil {
				return e
			}
		case *ast.FragmentSpread:
			if spreads++; spreads > c.b.maxSpreads {
				return limitError("fragmentSpreads", c.b.maxSpreads,
					"a selection set spreads more than %d fragments", c.b.maxSpreads)
			}
		}
	}
	return nil
}

// expandRoot expands one operation or fragment with fresh response paths.
func (c *docChecker) expandRoot(set ast.SelectionSet) *gqlerror.Error {
	c.paths = map[pathKey]int{}
	c.repeats = c.repeats[:0]
	c.repeats = append(c.repeats, 0) // id 0 is the root
	return c.expand(set, 0)
}

// expand walks set with every fragment spread replaced by the fragment's
// selections (a spread inside its own expansion is skipped: validation
// reports the cycle), counting selections against the budget and fields
// per response path.
func (c *docChecker) expand(set ast.SelectionSet, path int) *gqlerror.Error {
	for _, sel := range set {
		c.steps++
		if c.selections++; c.selections > c.b.maxSelections {
			return limitError("selections", c.b.maxSelections,
				"the document has more than %d selections with its fragments expanded", c.b.maxSelections)
		}
		switch s := sel.(type) {
		case *ast.Field:
			name := s.Alias
			if name == "" {
				name = s.Name
			}
			key := pathKey{path, name}
			id, ok := c.paths[key]
			if !ok {
				id = len(c.repeats)
				c.repeats = append(c.repeats, 0)
				c.paths[key] = id
			}
			if c.repeats[id]++; c.repeats[id] > c.b.maxRepeats {
				return limitError("repeatedFields", c.b.maxRepeats,
					"the field %q is selected more than %d times at one path", name, c.b.maxRepeats)
			}
			if e := c.expand(s.SelectionSet, id); e != nil {
				return e
			}
		case *ast.InlineFragment:
			if e := c.expand(s.SelectionSet, path); e != nil {
				return e
			}
		case *ast.FragmentSpread:
			def := c.frags[s.Name]
			if def == nil || c.onPath[s.Name] {
				continue
			}
			c.reached[s.Name] = true
			c.onPath[s.Name] = true
			e := c.expand(def.SelectionSet, path)
			delete(c.onPath, s.Name)
			if e != nil {
				return e
			}
		}
	}
	return nil
}
