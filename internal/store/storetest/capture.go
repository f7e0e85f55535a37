package storetest

import (
	"context"
	"database/sql"
	"strings"
	"sync"

	"entgo.io/ent/dialect"
)

// Statement is one statement a Capture saw, with its arguments.
type Statement struct {
	Query string
	Args  []any
}

// Capture is an Ent driver that records the queries sent through it
// (Ent's and raw ones), for tests that EXPLAIN what a feature sends. Wrap
// a driver and make a client of it with store.NewClient.
type Capture struct {
	dialect.Driver
	mu   sync.Mutex
	seen []Statement
}

// Query implements dialect.Driver.
func (c *Capture) Query(ctx context.Context, query string, args, v any) error {
	a, _ := args.([]any)
	c.record(query, a)
	return c.Driver.Query(ctx, query, args, v)
}

// QueryContext runs a raw query (the Ent client's QueryContext).
func (c *Capture) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	c.record(query, args)
	return c.Driver.(interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	}).QueryContext(ctx, query, args...)
}

func (c *Capture) record(query string, args []any) {
	c.mu.Lock()
	c.seen = append(c.seen, Statement{query, args})
	c.mu.Unlock()
}

// Seen returns the statements recorded so far.
func (c *Capture) Seen() []Statement {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Statement(nil), c.seen...)
}

// Last returns the last statement whose text contains match; ok is false
// when none did.
func (c *Capture) Last(match string) (s Statement, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.seen) - 1; i >= 0; i-- {
		if strings.Contains(c.seen[i].Query, match) {
			return c.seen[i], true
		}
	}
	return Statement{}, false
}
