package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// benchOptions are the flags of `ragchat bench`.
type benchOptions struct {
	only        map[string]bool
	databaseURL string
	concurrency []int
	rounds      int
	conns       int
	messages    int
	pageRuns    int
	ttft        time.Duration
	out         string
}

// runBench measures the API against a child `ragchat serve` process and a
// fake OpenAI-compatible model, and prints a Markdown report
// (docs/BENCHMARKS.md):
//
//   - ttft: backend overhead on the first token (ask sent → first DELTA,
//     minus the fake model's own time to first token) at several
//     concurrencies;
//   - wire: bytes on the wire per answer against the answer's size;
//   - page: a page of 50 messages from a 10,000-message conversation over
//     GraphQL against the same raw SQL;
//   - ws: memory per idle WebSocket connection.
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", stderr)
	only := fs.String("only", "ttft,wire,page,ws", "benchmarks to run (comma-separated: ttft, wire, page, ws)")
	dbURL := fs.String("database-url", "", "an empty PostgreSQL database for the child server (default: a temporary SQLite file)")
	conc := fs.String("concurrency", "1,50,200", "concurrent streams for ttft")
	rounds := fs.Int("rounds", 5, "questions per stream for ttft")
	conns := fs.Int("conns", 5000, "idle WebSocket connections for ws")
	messages := fs.Int("messages", 10000, "messages in the conversation for page")
	pageRuns := fs.Int("page-runs", 300, "page loads for page")
	ttft := fs.Duration("model-ttft", 50*time.Millisecond, "the fake model's time to first token")
	out := fs.String("out", "", "also write the report to this file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o := benchOptions{only: map[string]bool{}, databaseURL: *dbURL, rounds: *rounds, conns: *conns,
		messages: *messages, pageRuns: *pageRuns, ttft: *ttft, out: *out}
	for _, name := range strings.Split(*only, ",") {
		o.only[strings.TrimSpace(name)] = true
	}
	for _, s := range strings.Split(*conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return usagef("bad --concurrency %q", *conc)
		}
		o.concurrency = append(o.concurrency, n)
	}

	env, err := startBenchEnv(ctx, o, stderr)
	if err != nil {
		return err
	}
	defer env.close()
	var report strings.Builder
	fmt.Fprintf(&report, "Measured %s on %s with %s; fake model TTFT %s.\n\n", time.Now().UTC().Format("2006-01-02"), machine(), env.dbKind, o.ttft)
	steps := []struct {
		name string
		run  func(context.Context, *benchEnv, benchOptions, io.Writer) error
	}{
		{"ttft", benchTTFT}, {"wire", benchWire}, {"page", benchPage}, {"ws", benchIdleWS},
	}
	for _, s := range steps {
		if !o.only[s.name] {
			continue
		}
		fmt.Fprintf(stderr, "bench: %s …\n", s.name)
		if err := s.run(ctx, env, o, &report); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	fmt.Fprint(stdout, report.String())
	if o.out != "" {
		return os.WriteFile(o.out, []byte(report.String()), 0o644)
	}
	return nil
}
