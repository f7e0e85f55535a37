// Package defaults holds the rules by which options and limits fill their
// unset fields: a count, size or duration that is not positive takes its
// default, a nil clock is time.Now and a nil logger slog.Default. (Fields
// whose negative values mean something, such as "off", are filled with
// cmp.Or, which replaces only the zero value.)
package defaults

import (
	"log/slog"
	"time"
)

// Number is what Positive fills: counts, sizes, durations and ratios.
type Number interface {
	~int | ~int32 | ~int64 | ~float64
}

// Positive returns v when it is positive, def otherwise.
func Positive[T Number](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Clock returns now, or time.Now when it is nil.
func Clock(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}

// Logger returns l, or slog.Default() when it is nil.
func Logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.Default()
	}
	return l
}
