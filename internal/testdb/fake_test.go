package testdb_test

import (
	"fmt"
	"runtime"
	"testing"
)

// fakeTB records Fatalf and Skipf instead of failing or skipping the real
// test; everything else goes to the embedded real test.
type fakeTB struct {
	testing.TB
	fatal   string
	skipped string
	logs    []string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fakeTB) Skipf(format string, args ...any) {
	f.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fakeTB) Logf(format string, args ...any) {
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}

// runFake calls fn with a fakeTB on its own goroutine, so that Fatalf and Skipf
// can end it with runtime.Goexit as the testing package does, and waits for
// that goroutine to end. completed reports whether fn returned normally.
func runFake(t *testing.T, fn func(tb testing.TB)) (f *fakeTB, completed bool) {
	t.Helper()
	f = &fakeTB{TB: t}
	done := make(chan bool)
	go func() {
		ok := false
		defer func() { done <- ok }()
		fn(f)
		ok = true
	}()
	return f, <-done
}
