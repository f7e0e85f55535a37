// Package stmtplan marks the statements that PostgreSQL must plan with
// their values on every execution. The store prepares the statements it
// sends often (internal/store, stmtCache), and after five executions
// PostgreSQL may switch a prepared statement to a generic plan, made
// without the values. That plan is fine for a lookup by id. It is a
// disaster where the best plan depends on the values' selectivity: for a
// full-text query the generic plan assumes a rare term and a user with one
// conversation, and probes the GIN index once per conversation (48 s
// instead of 76 ms for a broad term over 10,000 conversations,
// docs/BENCHMARKS.md, "Conversation search"). A context marked with
// PerExecution makes the store send its statements unprepared, which
// PostgreSQL always plans with the values.
package stmtplan

import (
	"context"

	"github.com/ragchat/ragchat/internal/ctxflag"
)

type perExecutionKey struct{}

// PerExecution returns ctx marked: the statements sent with it are planned
// with their values on every execution.
func PerExecution(ctx context.Context) context.Context {
	return ctxflag.Set[perExecutionKey](ctx)
}

// IsPerExecution reports whether ctx is marked by PerExecution.
func IsPerExecution(ctx context.Context) bool {
	return ctxflag.IsSet[perExecutionKey](ctx)
}
