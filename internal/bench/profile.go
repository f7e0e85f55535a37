package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// throughputProfile is what the throughput part collects with
// --profile-dir, over its timed asks: the server's CPU profile, its
// allocation profiles before and after them (their difference is what the
// asks allocated), and, on PostgreSQL with pg_stat_statements loaded, the
// statements' calls and times. Issue 33 asks for these before any change.
type throughputProfile struct {
	dir, addr string
	cpu       chan error
	// pgStat says pg_stat_statements was reset before the asks; why not,
	// when it was not.
	pgStat    bool
	pgStatWhy string
}

// profileTarget makes --profile-dir and returns the child's pprof
// address, what every part's profiles need first.
func profileTarget(env *benchEnv, o benchOptions) (string, error) {
	if err := os.MkdirAll(o.profileDir, 0o755); err != nil {
		return "", err
	}
	return env.pprofAddr()
}

// pgStatTop is how many statements the report lists.
const pgStatTop = 15

// startThroughputProfile starts the CPU profile for o.duration and takes
// the first allocation profile. It returns nil without --profile-dir.
func startThroughputProfile(ctx context.Context, env *benchEnv, o benchOptions) (*throughputProfile, error) {
	if o.profileDir == "" {
		return nil, nil
	}
	addr, err := profileTarget(env, o)
	if err != nil {
		return nil, err
	}
	p := &throughputProfile{dir: o.profileDir, addr: addr, cpu: make(chan error, 1)}
	if err := saveProfile(ctx, p.url("allocs"), p.path("throughput-allocs-before.pb.gz")); err != nil {
		return nil, err
	}
	p.resetPGStat(ctx, env)
	secs := max(1, int(o.duration.Round(time.Second)/time.Second))
	go func() {
		p.cpu <- saveProfile(ctx, p.url(fmt.Sprintf("profile?seconds=%d", secs)), p.path("throughput-cpu.pb.gz"))
	}()
	return p, nil
}

func (p *throughputProfile) url(name string) string {
	return "http://" + p.addr + "/debug/pprof/" + name
}

func (p *throughputProfile) path(name string) string { return filepath.Join(p.dir, name) }

// resetPGStat empties pg_stat_statements when the database has it, so
// that what it holds afterwards is the asks' statements.
func (p *throughputProfile) resetPGStat(ctx context.Context, env *benchEnv) {
	if env.db.Dialect != "postgres" {
		p.pgStatWhy = "SQLite"
		return
	}
	if _, err := env.db.SQL.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err != nil {
		p.pgStatWhy = "pg_stat_statements: " + err.Error()
		return
	}
	if _, err := env.db.SQL.ExecContext(ctx, "SELECT pg_stat_statements_reset()"); err != nil {
		p.pgStatWhy = "pg_stat_statements (is it in shared_preload_libraries?): " + err.Error()
		return
	}
	p.pgStat = true
}

// finish waits for the CPU profile, takes the second allocation profile
// and writes what was collected: the files, how to read them, and the
// statements by total time with their calls per completed ask.
func (p *throughputProfile) finish(ctx context.Context, env *benchEnv, completed int, w io.Writer) error {
	if p == nil {
		return nil
	}
	if err := saveProfile(ctx, p.url("allocs"), p.path("throughput-allocs-after.pb.gz")); err != nil {
		return err
	}
	if err := <-p.cpu; err != nil {
		return err
	}
	fmt.Fprintf(w, "Profiles of the server over the timed asks in %s: `go tool pprof -top %s`; what the asks allocated: `go tool pprof -sample_index=alloc_space -top -base %s %s`.\n\n",
		p.dir, p.path("throughput-cpu.pb.gz"), p.path("throughput-allocs-before.pb.gz"), p.path("throughput-allocs-after.pb.gz"))
	if !p.pgStat {
		fmt.Fprintf(w, "No statement statistics (%s).\n\n", p.pgStatWhy)
		return nil
	}
	rows, err := env.db.SQL.QueryContext(ctx, `
		SELECT calls, total_exec_time, mean_exec_time, total_plan_time, plans, rows, query
		FROM pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
		ORDER BY total_exec_time DESC LIMIT $1`, pgStatTop)
	if err != nil {
		return err
	}
	defer rows.Close()
	fmt.Fprintf(w, "The %d statements with the most execution time over the timed asks (pg_stat_statements, reset before them; %d asks completed):\n\n", pgStatTop, completed)
	fmt.Fprintln(w, "| calls | per ask | total ms | mean ms | plans | plan ms | rows | statement |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---|")
	for rows.Next() {
		var (
			calls, plans, nrows   int64
			total, mean, planTime float64
			query                 string
		)
		if err := rows.Scan(&calls, &total, &mean, &planTime, &plans, &nrows, &query); err != nil {
			return err
		}
		fmt.Fprintf(w, "| %d | %.2f | %.1f | %.3f | %d | %.1f | %d | `%s` |\n", calls, float64(calls)/float64(max(completed, 1)),
			total, mean, plans, planTime, nrows, statementText(query))
	}
	fmt.Fprintln(w)
	return rows.Err()
}

// statementText is a statement on one line, cut to 160 characters, with
// no backquote (it goes into a Markdown code span).
func statementText(q string) string {
	q = strings.Join(strings.Fields(strings.ReplaceAll(q, "`", "'")), " ")
	if r := []rune(q); len(r) > 160 {
		q = string(r[:160]) + "…"
	}
	return q
}

// pageProfileFor is how long the page part profiles page loads with
// --profile-dir.
const pageProfileFor = 10 * time.Second

// profilePages writes a CPU profile of the server over pageProfileFor of
// page loads (load), taken after the measured loads so that it does not
// disturb them, and says where it is.
func profilePages(ctx context.Context, env *benchEnv, o benchOptions, load func() error, w io.Writer) error {
	addr, err := profileTarget(env, o)
	if err != nil {
		return err
	}
	path := filepath.Join(o.profileDir, "page-cpu.pb.gz")
	done := make(chan error, 1)
	go func() {
		done <- saveProfile(ctx, fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, int(pageProfileFor/time.Second)), path)
	}()
	n := 0
	for deadline := time.Now().Add(pageProfileFor); time.Now().Before(deadline); n++ {
		if err := load(); err != nil {
			<-done
			return err
		}
	}
	if err := <-done; err != nil {
		return err
	}
	fmt.Fprintf(w, "A CPU profile of the server over %d more page loads (%s, after the measured ones): `go tool pprof -top %s`.\n\n", n, pageProfileFor, path)
	return nil
}

// heapProfile is the idle WebSocket part's pair of heap profiles with
// --profile-dir: the server's live heap (after a collection) before the
// connections open and while they are held, whose difference is what the
// connections keep.
type heapProfile struct{ before, after, url string }

// startHeapProfile takes the first heap profile; it returns nil without
// --profile-dir.
func startHeapProfile(ctx context.Context, env *benchEnv, o benchOptions) (*heapProfile, error) {
	if o.profileDir == "" {
		return nil, nil
	}
	addr, err := profileTarget(env, o)
	if err != nil {
		return nil, err
	}
	h := &heapProfile{
		before: filepath.Join(o.profileDir, "ws-heap-before.pb.gz"),
		after:  filepath.Join(o.profileDir, "ws-heap-after.pb.gz"),
		url:    "http://" + addr + "/debug/pprof/heap?gc=1",
	}
	return h, saveProfile(ctx, h.url, h.before)
}

// finish takes the second heap profile and says how to read the pair.
func (h *heapProfile) finish(ctx context.Context, w io.Writer) error {
	if h == nil {
		return nil
	}
	if err := saveProfile(ctx, h.url, h.after); err != nil {
		return err
	}
	fmt.Fprintf(w, "What the open connections keep on the server's heap: `go tool pprof -sample_index=inuse_space -top -base %s %s`.\n\n", h.before, h.after)
	return nil
}
