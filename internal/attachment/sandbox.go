package attachment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultSandboxMemory is how much a sandbox child's address space may
// grow when Sandbox.MemoryBytes is 0.
const DefaultSandboxMemory = 512 << 20

// A Sandbox extracts text in a child process: the server's own binary
// run as `ragchat extract` (SandboxMain). The PDF library reads files an
// attacker writes, and a crafted file can drive it into a loop that no
// context interrupts or into an allocation that ends the process; in the
// child, the attempt's deadline kills the process, its address space may
// grow by MemoryBytes at most (RLIMIT_AS, on Linux), it runs on one
// thread at a lower CPU priority (nice 10, on Linux), and a crash is the
// child's alone: the file is FAILED, the server carries on. Within those
// hard bounds the child applies the same Limits as Extract in process.
type Sandbox struct {
	// Command runs the child: a program and its arguments, to which the
	// limits are appended as flags ([the binary, "extract"]).
	Command []string
	// Env is the child's environment besides GOMAXPROCS=1.
	Env []string
	// MemoryBytes bounds the growth of the child's address space (0:
	// DefaultSandboxMemory).
	MemoryBytes int64
}

// sandboxResult is what the child writes on its standard output.
type sandboxResult struct {
	Text      string `json:"text"`
	Truncated bool   `json:"truncated"`
	Pages     int    `json:"pages"`
	Inflated  int64  `json:"inflated"`
	// Failure is "NO_TEXT", "TOO_MANY_PAGES" or "FAILED" (Error says
	// why), empty on success.
	Failure string `json:"failure,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Extract runs Extract in a child process: its result, or errNoText, a
// *PageLimitError, ctx's error when ctx ended first (the child is
// killed), or an error when the child failed, crashed or wrote more than
// the text bound allows.
func (b *Sandbox) Extract(ctx context.Context, mediaType string, data []byte, lim Limits) (Extraction, error) {
	lim = lim.withDefaults()
	mem := b.MemoryBytes
	if mem <= 0 {
		mem = DefaultSandboxMemory
	}
	if len(b.Command) == 0 {
		return Extraction{}, errors.New("attachment: sandbox: no command")
	}
	args := append(slices.Clone(b.Command[1:]),
		"-type", mediaType,
		"-max-text", strconv.Itoa(lim.MaxTextBytes),
		"-max-pages", strconv.Itoa(lim.MaxPDFPages),
		"-max-stream", strconv.FormatInt(lim.MaxStreamBytes, 10),
		"-max-inflated", strconv.FormatInt(lim.MaxInflatedBytes, 10),
		"-memory", strconv.FormatInt(mem, 10),
	)
	if dl, ok := ctx.Deadline(); ok {
		args = append(args, "-deadline", time.Until(dl).String())
	}
	cmd := exec.CommandContext(ctx, b.Command[0], args...)
	cmd.SysProcAttr = sandboxAttr()
	cmd.Env = append([]string{"GOMAXPROCS=1"}, b.Env...)
	cmd.Stdin = bytes.NewReader(data)
	// JSON at most doubles the text (escapes of quotes and line breaks;
	// HTML characters are not escaped), plus the fields.
	stdout := &cappedBuffer{max: 2*lim.MaxTextBytes + 64<<10}
	stderr := &cappedBuffer{max: 1 << 10, drop: true}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return Extraction{}, ctx.Err()
	}
	if stdout.over {
		return Extraction{}, errors.New("attachment: sandbox: the child wrote more than the text bound")
	}
	if err != nil {
		return Extraction{}, fmt.Errorf("attachment: sandbox: %w: %s", err, firstLines(stderr.b.String(), 2))
	}
	var res sandboxResult
	if err := json.Unmarshal(stdout.b.Bytes(), &res); err != nil {
		return Extraction{}, fmt.Errorf("attachment: sandbox: %w", err)
	}
	ex := Extraction{Text: res.Text, Truncated: res.Truncated, Pages: res.Pages, Inflated: res.Inflated}
	switch res.Failure {
	case "":
		return ex, nil
	case FailureNoText:
		return ex, errNoText
	case FailureTooManyPages:
		return ex, &PageLimitError{Max: lim.MaxPDFPages}
	}
	return ex, fmt.Errorf("attachment: sandbox: %s", res.Error)
}

// cappedBuffer keeps the first max bytes written to it and refuses the
// rest (the child's write fails, and it stops), or with drop discards
// the rest (a crash's message comes first, its goroutines' stacks
// after).
type cappedBuffer struct {
	b    bytes.Buffer
	max  int
	over bool
	drop bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.b.Len()+len(p) > c.max {
		if c.drop {
			c.b.Write(p[:max(0, c.max-c.b.Len())])
			return len(p), nil
		}
		c.over = true
		return 0, errors.New("attachment: sandbox: output over its bound")
	}
	return c.b.Write(p)
}

// firstLines returns the first n non-empty lines of s, joined by "; ".
func firstLines(s string, n int) string {
	var out []string
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" && len(out) < n {
			out = append(out, line)
		}
	}
	return strings.Join(out, "; ")
}

// SandboxMain is the child of a Sandbox (`ragchat extract`): it bounds
// its own process (limitProcess: the address space may grow by -memory
// bytes, processor time a little past -deadline, a lower CPU priority)
// and its Go heap, reads the file from
// stdin, extracts its text with Extract within the limits of its flags
// and -deadline, and writes a sandboxResult on stdout. It returns the
// process's exit code: 0 when it wrote a result, 2 for bad flags.
func SandboxMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ragchat extract", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var lim Limits
	mediaType := fs.String("type", TypePDF, "the file's media type")
	fs.IntVar(&lim.MaxTextBytes, "max-text", DefaultLimits.MaxTextBytes, "bytes of text kept")
	fs.IntVar(&lim.MaxPDFPages, "max-pages", DefaultLimits.MaxPDFPages, "pages of a PDF's page tree")
	fs.Int64Var(&lim.MaxStreamBytes, "max-stream", DefaultLimits.MaxStreamBytes, "decompressed bytes of one stream")
	fs.Int64Var(&lim.MaxInflatedBytes, "max-inflated", DefaultLimits.MaxInflatedBytes, "decompressed bytes of all streams")
	mem := fs.Int64("memory", DefaultSandboxMemory, "bytes the address space may grow by")
	deadline := fs.Duration("deadline", DefaultDeadline, "time the extraction may take")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := limitProcess(*mem, *deadline+5*time.Second); err != nil {
		fmt.Fprintf(stderr, "ragchat extract: %v\n", err)
		return 1
	}
	debug.SetMemoryLimit(*mem / 2)
	data, err := io.ReadAll(io.LimitReader(stdin, *mem/4))
	if err != nil {
		fmt.Fprintf(stderr, "ragchat extract: %v\n", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), *deadline)
	defer cancel()
	ex, err := Extract(ctx, *mediaType, data, lim)
	res := sandboxResult{Text: ex.Text, Truncated: ex.Truncated, Pages: ex.Pages, Inflated: ex.Inflated}
	var pages *PageLimitError
	switch {
	case err == nil:
	case errors.Is(err, errNoText):
		res.Failure = FailureNoText
	case errors.As(err, &pages):
		res.Failure = FailureTooManyPages
	default:
		res.Failure, res.Error = "FAILED", err.Error()
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		fmt.Fprintf(stderr, "ragchat extract: %v\n", err)
		return 1
	}
	return 0
}
