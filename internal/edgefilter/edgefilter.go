// Package edgefilter applies row visibility to the subqueries that Ent edge
// predicates (Has<Edge>, Has<Edge>With) build. Ent privacy policies filter
// the rows a query returns, but not the rows an edge predicate looks at: a
// member could otherwise probe another user's conversations with
// knowledgebase.HasConversationsWith(conversation.TitleContains("…")).
//
// The generated edge predicates (see ent/template/edgeprivacy.tmpl) call
// Restrict with the target table; internal/authz registers the function
// that knows what the context's viewer may see. Until one is registered,
// edge predicates match nothing (fail closed).
package edgefilter

import (
	"sync/atomic"

	"entgo.io/ent/dialect/sql"
)

// ScopeFunc adds to s, a selector over table, the predicate that limits it
// to the rows the actor in s.Context() may see.
type ScopeFunc func(s *sql.Selector, table string)

var scope atomic.Pointer[ScopeFunc]

// Register installs f as the scope of every edge-predicate subquery.
func Register(f ScopeFunc) { scope.Store(&f) }

// Enabled reports whether edge predicates are filtered. It is always true:
// when no scope is registered, Restrict fails closed.
func Enabled() bool { return true }

// Restrict returns the predicate that limits an edge subquery over table to
// the rows the actor may see.
func Restrict(table string) func(*sql.Selector) {
	return func(s *sql.Selector) {
		if f := scope.Load(); f != nil {
			(*f)(s, table)
			return
		}
		s.Where(sql.False())
	}
}
