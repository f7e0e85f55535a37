// Command ragchat-bench measures a ragchat server binary and prints a
// Markdown report that ends with the Targets table (docs/BENCHMARKS.md):
//
//	ragchat-bench [--server-bin bin/ragchat] [--database-url URL] [--only PARTS] …
//
// It starts child `ragchat serve` processes of that binary and a fake
// OpenAI-compatible model (internal/bench); `make bench` builds both
// binaries into bin/ and runs it. It is a separate binary so that the
// server links neither the fake model nor the test GraphQL client.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ragchat/ragchat/internal/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the harness and returns the exit code: 0 on success (and for
// -h), 2 on a usage error, 1 on any other error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := bench.Run(ctx, args, stdout, stderr)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(bench.UsageError)):
		fmt.Fprintf(stderr, "ragchat-bench: %v\n", err)
		return 2
	default:
		fmt.Fprintf(stderr, "ragchat-bench: %v\n", err)
		return 1
	}
}
