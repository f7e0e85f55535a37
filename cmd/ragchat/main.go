// Command ragchat is the one ragchat binary:
//
//	ragchat serve                      run the API server
//	ragchat migrate up|version         apply or show database migrations
//	ragchat token --tenant T --user U  print a development JWT
//	ragchat ingest --tenant T --kb K FILES…
//	                                   ingest documents as an admin of T
//	ragchat version                    print the version
//	ragchat healthcheck [--live]       exit 0 when the local server is
//	                                   ready (/readyz) or live (/healthz)
//	ragchat extract [flags]            the server's PDF sandbox: one file's
//	                                   text from stdin (internal/attachment)
//
// Configuration comes from environment variables (docs/API.md). The
// benchmark harness is a separate binary, cmd/ragchat-bench, that runs
// this one (docs/BENCHMARKS.md).
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
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"serve", "run the API server", runServe},
		{"migrate", "apply (up) or show (version) database migrations", runMigrate},
		{"token", "print a development JWT for a tenant and user", runToken},
		{"ingest", "ingest documents into a knowledge base as an admin of a tenant", runIngest},
		{"version", "print the version", runVersion},
		{"healthcheck", "exit 0 when the local server is ready (/readyz); for container health checks", runHealthcheck},
		{"extract", "extract one file's text from stdin; the server's PDF sandbox runs it", runExtract},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand and returns the exit code: 0 on success, 2
// on a usage error, 1 on any other error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, args[1:], stdout, stderr)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, new(usageError)):
			fmt.Fprintf(stderr, "ragchat %s: %v\n", c.name, err)
			return 2
		default:
			fmt.Fprintf(stderr, "ragchat %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "ragchat: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ragchat <command> [flags]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'ragchat <command> -h' for a command's flags. Configuration: environment variables (docs/API.md).")
}

// usageError is a bad invocation (exit code 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("ragchat "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses args, turning flag errors into usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	return nil
}
