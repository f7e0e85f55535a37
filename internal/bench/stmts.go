package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
)

// The server's statement metrics (internal/server/dbmetrics.go).
const (
	metricStatements   = "ragchat_db_statements_total"
	metricOpStatements = "ragchat_db_statements_per_operation"
	metricContextTime  = "ragchat_context_assembly_seconds"
)

// opStatements names a sample of the per-operation statement histogram of
// one operation type (mutation, subscription, query).
func opStatements(suffix, kind string) string {
	return metricOpStatements + "_" + suffix + `{type="` + kind + `"}`
}

// benchStmts counts the SQL statements of one follow-up ask on the running
// child server, from its /metrics: the whole ask (ragchat_db_statements_total
// from before the ask until the server is idle again after the answer,
// the streaming client's reads included) and the `ask` mutation itself
// (ragchat_db_statements_per_operation for mutations, which leaves out the
// answer's background run). Each of o.stmtAsks samples is the second ask
// of a fresh conversation (the first sets the title), asked when nothing
// else runs; the least sample is the figure, since a periodic job (the
// reaper) can only add statements to a sample.
func benchStmts(ctx context.Context, env *benchEnv, o benchOptions, w io.Writer) error {
	c := env.client("stmts")
	ws, err := c.DialWS(ctx, gqlclient.WSOptions{})
	if err != nil {
		return err
	}
	defer ws.Close()
	type sample struct{ whole, ask, sub int }
	var samples []sample
	for range o.stmtAsks {
		conv, err := createConvIn(ctx, c, env.kb)
		if err != nil {
			return err
		}
		if _, _, err := askAndFollow(ctx, c, ws, conv, throughputQuestion); err != nil {
			return fmt.Errorf("first ask: %w", err)
		}
		before, err := settledMetrics(ctx, env)
		if err != nil {
			return err
		}
		kind, _, err := askAndFollow(ctx, c, ws, conv, "And what happens when a file is larger than that?")
		if err != nil {
			return err
		}
		if kind != "COMPLETED" {
			return fmt.Errorf("the counted ask ended %s", kind)
		}
		after, err := settledMetrics(ctx, env)
		if err != nil {
			return err
		}
		delta := func(name string) int { return int(after[name] - before[name] + 0.5) }
		if n := delta(opStatements("count", "mutation")); n != 1 {
			return fmt.Errorf("%d mutations between the counts, want the one ask (is %s exported?)", n, metricOpStatements)
		}
		samples = append(samples, sample{whole: delta(metricStatements), ask: delta(opStatements("sum", "mutation")), sub: delta(opStatements("sum", "subscription"))})
	}
	if len(samples) == 0 {
		return errors.New("no sample")
	}
	least := func(f func(sample) int) int {
		return slices.Min(func() []int {
			var v []int
			for _, s := range samples {
				v = append(v, f(s))
			}
			return v
		}())
	}
	most := func(f func(sample) int) int {
		m := 0
		for _, s := range samples {
			m = max(m, f(s))
		}
		return m
	}
	whole, ask, sub := least(func(s sample) int { return s.whole }), least(func(s sample) int { return s.ask }), least(func(s sample) int { return s.sub })
	if whole <= 0 || ask <= 0 {
		return fmt.Errorf("no statements counted (whole %d, ask %d): is %s exported?", whole, ask, metricStatements)
	}
	env.results.stmtsOK, env.results.wholeAsk, env.results.askCall = true, whole, ask

	fmt.Fprintf(w, "### Statements per ask, on the running server\n\n")
	fmt.Fprintf(w, "Read from the child server's /metrics (`%s`, and `%s` for the `ask` mutation and the subscription up to its first event) around one follow-up ask (offline model), the second of a fresh conversation, with nothing else running; the whole ask is counted from before the ask until the counter has stayed still for 0.75 s after COMPLETED (the work after an answer included). %d samples; the least is the figure (a periodic job such as the reaper can only add to a sample). Statements the server sends through its raw pool rather than the Ent client (the summary and instance locks, the PostgreSQL broker's NOTIFY) are not counted. The same counts, deterministic, in-process: `go test ./internal/chat -run TestStatementsPerAsk -v`.\n\n",
		metricStatements, metricOpStatements, len(samples))
	fmt.Fprintln(w, "| | least | most |")
	fmt.Fprintln(w, "|---|---:|---:|")
	fmt.Fprintf(w, "| whole ask (ask, answer, completion, the client's reads, the work after the answer) | %d | %d |\n", whole, most(func(s sample) int { return s.whole }))
	fmt.Fprintf(w, "| the `ask` mutation | %d | %d |\n", ask, most(func(s sample) int { return s.ask }))
	fmt.Fprintf(w, "| the subscription, up to its first event | %d | %d |\n\n", sub, most(func(s sample) int { return s.sub }))
	return nil
}

// settledMetrics scrapes the server's metrics until its statement counter
// has not moved for three scrapes 250 ms apart (the work after an answer
// has ended), within a minute.
func settledMetrics(ctx context.Context, env *benchEnv) (map[string]float64, error) {
	deadline := time.Now().Add(time.Minute)
	var last map[string]float64
	still := 0
	for {
		m, err := scrapeMetrics(ctx, env.base+"/metrics")
		if err != nil {
			return nil, err
		}
		if _, ok := m[metricStatements]; !ok {
			return nil, fmt.Errorf("the server exports no %s", metricStatements)
		}
		if last != nil && m[metricStatements] == last[metricStatements] {
			still++
		} else {
			still = 0
		}
		if still >= 3 {
			return m, nil
		}
		if time.Now().After(deadline) {
			return nil, errors.New("the server's statement counter did not settle within a minute")
		}
		last = m
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
