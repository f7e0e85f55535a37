package bench

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// UsageError is a bad invocation of ragchat-bench: an unknown flag, part
// or size (exit code 2).
type UsageError struct{ msg string }

func (e UsageError) Error() string { return e.msg }

// usagef returns a UsageError with a formatted message.
func usagef(format string, args ...any) error { return UsageError{fmt.Sprintf(format, args...)} }

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("ragchat-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses args, turning flag errors into usage errors; -h stays
// flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return UsageError{err.Error()}
	}
	return nil
}
