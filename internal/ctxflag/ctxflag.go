// Package ctxflag holds the boolean marks that code puts on a context for
// code further down to test. A mark is an empty struct type of the package
// that owns it, unexported, so that no other package can set or read it.
package ctxflag

import "context"

// Set returns a copy of ctx marked with K.
func Set[K comparable](ctx context.Context) context.Context {
	var k K
	return context.WithValue(ctx, k, true)
}

// IsSet reports whether ctx is marked with K.
func IsSet[K comparable](ctx context.Context) bool {
	var k K
	on, _ := ctx.Value(k).(bool)
	return on
}
