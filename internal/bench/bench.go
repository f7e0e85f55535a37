// Package bench is the benchmark harness behind cmd/ragchat-bench. It
// starts child `ragchat serve` processes of a given server binary (and
// runs `ragchat ingest` with it to provision them), a fake
// OpenAI-compatible model in this process, and measures the API through
// its transports with the test GraphQL client: the time to the first
// token, bytes on the wire, a page of messages, idle WebSocket memory,
// throughput, statements per ask, context assembly, a soak, and across
// instances the delta lag and cancel. Run prints a Markdown report that
// ends with the Targets table (docs/BENCHMARKS.md). None of this is linked
// into the server binary.
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// benchOptions are the flags of `ragchat-bench`.
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
	serverBin   string // the --server-bin flag: the ragchat binary the children run
	// The cross-instance parts (lag, cancel).
	brokers     []string
	natsURL     string
	instances   int
	cancels     int
	answerBytes int
	deltaWindow time.Duration // RAGCHAT_DELTA_WINDOW of the children; negative: the server's default
	deltaBudget time.Duration // RAGCHAT_DELTA_BUDGET of the children; negative: the server's default
	// The offline parts (throughput, stmts, context).
	workers       int
	asks          int
	duration      time.Duration
	stmtAsks      int
	contextRounds []int
	contextAsks   int
	// profileDir: where throughput writes the server's profiles and
	// statement statistics over its timed asks ("": none; profile.go).
	profileDir string
	// The soak part.
	soakDuration time.Duration
	soakRounds   int
	soakWorkers  int
	soakUsers    int
	soakTurns    int
	soakIdle     time.Duration
	soakProfiles string
	// The hostileuploads part.
	hostileRounds    int
	hostileUploaders int
	hostileWarmup    time.Duration
	args             []string // the command line, to print how to reproduce
}

// singleParts run against one child server, in this order (floor first);
// crossParts start their own clusters of child servers on one PostgreSQL
// database.
var (
	singleParts = []benchPart{
		// ws right after floor: it reads the server's memory growth, which
		// the other parts' garbage would blur.
		{"floor", false, benchFloor}, {"ws", false, benchIdleWS}, {"ttft", false, benchTTFT}, {"wire", false, benchWire}, {"page", false, benchPage},
		// hostileuploads is not in the default list (it loads the machine
		// on purpose); last of the fake model's parts, so that the files
		// its child is still processing go with that child.
		{"hostileuploads", false, benchHostileUploads},
		{"throughput", true, benchThroughput}, {"stmts", true, benchStmts}, {"context", true, benchContext},
		// soak is not in the default list (it takes minutes); it runs
		// against a child of its own (soak.go).
		{"soak", true, benchSoak},
	}
	crossParts = []string{"lag", "cancel"}
	// timedParts have rows read as multiples of the floor: whenever one of
	// them runs, floor runs first.
	timedParts = []string{"ttft", "page", "throughput", "stmts", "context"}
)

// benchPart is one part that runs against a single child server.
type benchPart struct {
	name string
	// offline parts run against a child answering with the offline model
	// at zero delay (offline.go); the others against the fake model.
	// floor needs no model and runs on whichever child comes first.
	offline bool
	run     func(context.Context, *benchEnv, benchOptions, io.Writer) error
}

// Run is `ragchat-bench`: it parses args, measures the API against child
// `ragchat serve` processes of the server binary (--server-bin, found as
// serverBinary says) and a fake OpenAI-compatible model, and prints a
// Markdown report (docs/BENCHMARKS.md) on stdout. A bad invocation returns
// a UsageError; -h returns flag.ErrHelp. The parts:
//
//   - floor: the database's own cost through the same driver (SELECT 1,
//     an indexed read, a small write transaction), beside which the other
//     figures are read (floor.go);
//   - ttft: backend overhead on the first token (ask sent → first DELTA,
//     minus the fake model's own time to first token) at several
//     concurrencies;
//   - wire: bytes on the wire per answer against the answer's size;
//   - page: a page of 50 messages from a 10,000-message conversation over
//     GraphQL against the same raw SQL, and the current path page of
//     branched conversations of 100 and 10,000 messages (pathpage.go);
//   - ws: memory per idle WebSocket connection;
//   - throughput: completed asks per second with the offline model at zero
//     delay, and the CPU per ask that bounds it (throughput.go);
//   - stmts: SQL statements per whole ask and in the ask call, from the
//     server's /metrics (stmts.go);
//   - context: the server's context assembly time by conversation length
//     (context.go);
//   - soak: the server's heap, resident set and cache entries after a
//     warm-up and after each of several identical soaks of asks
//     (soak.go; not run unless named);
//   - hostileuploads: the first token of asks quiet and during a burst of
//     uploads designed to be expensive, and what became of the files
//     (hostileuploads.go; not run unless named);
//   - lag: across instances, the delay from the model emitting a token to
//     subscribers on the asking instance and on another one receiving it,
//     per broker (lag.go);
//   - cancel: across instances, cancelAttempt sent to another instance →
//     the model request on the owning instance closed (cancel.go).
//
// The report ends with the Targets table (targets.go): issue 23's
// targets (and earlier rounds' rows kept as regressions), what this run
// measured and the floor multiples.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(stderr)
	only := fs.String("only", "floor,ws,ttft,wire,page,throughput,stmts,context", "benchmarks to run (comma-separated: floor, ws, ttft, wire, page, throughput, stmts, context, soak, hostileuploads; across instances, with --database-url: lag, cancel); floor runs whenever a timed part does")
	dbURL := fs.String("database-url", "", "an empty PostgreSQL database for the child servers (default: a temporary SQLite file; lag and cancel need PostgreSQL)")
	conc := fs.String("concurrency", "1,50,200", "concurrent streams for ttft and lag")
	rounds := fs.Int("rounds", 5, "questions per stream for ttft and lag")
	conns := fs.Int("conns", 5000, "idle WebSocket connections for ws")
	messages := fs.Int("messages", 10000, "messages in the conversation for page (PostgreSQL seeds all but two with one INSERT … SELECT over generate_series; 1000000 is issue 23's 1M-message database)")
	pageRuns := fs.Int("page-runs", 300, "page loads for page")
	ttft := fs.Duration("model-ttft", 50*time.Millisecond, "the fake model's time to first token")
	brokers := fs.String("brokers", "memory,postgres,nats", "brokers for lag and cancel (memory: one instance, the floor; postgres and nats: --instances servers)")
	natsURL := fs.String("nats-url", os.Getenv("RAGCHAT_NATS_URL"), "a NATS server for the nats broker (default $RAGCHAT_NATS_URL; `go run ./internal/tools/natsserver -- ragchat-bench …` provides one)")
	instances := fs.Int("instances", 2, "servers per cluster for lag and cancel (asks go to the first, subscribers and cancels to the others)")
	cancels := fs.Int("cancels", 50, "cancels per target instance for cancel")
	answerBytes := fs.Int("answer-bytes", 600, "the fake model's answer for lag, in bytes (4 per chunk, one chunk per 15 ms)")
	deltaWindow := fs.Duration("delta-window", -1, "RAGCHAT_DELTA_WINDOW for the child servers (default: the server's, 40ms; 0 sends every delta at once)")
	deltaBudget := fs.Duration("delta-budget", -1, "RAGCHAT_DELTA_BUDGET for the child servers (default: the server's, 400ms; the longest any text is held by delta coalescing)")
	workers := fs.Int("workers", 2, "concurrent askers for throughput")
	asks := fs.Int("asks", 400, "completed asks in all for throughput")
	duration := fs.Duration("duration", 0, "run throughput for this long instead of --asks")
	stmtAsks := fs.Int("stmt-asks", 5, "asks counted for stmts (the least count is the figure)")
	ctxRounds := fs.String("context-rounds", "10,10000", "conversation lengths in rounds for context (the Targets table compares the shortest and the longest)")
	ctxAsks := fs.Int("context-asks", 20, "asks per conversation length for context")
	soakDuration := fs.Duration("soak-duration", 150*time.Second, "how long each soak asks, for soak")
	soakRounds := fs.Int("soak-rounds", 2, "identical soaks one after the other, for soak")
	soakWorkers := fs.Int("soak-workers", 4, "concurrent askers in a soak, for soak")
	soakUsers := fs.Int("soak-users", 40, "distinct users in each soak (new ones in every soak), for soak")
	soakTurns := fs.Int("soak-turns", 6, "questions per conversation, for soak")
	soakIdle := fs.Duration("soak-idle", 30*time.Second, "how long after the last soak it is measured once more, for soak (0: not)")
	soakProfiles := fs.String("soak-profiles", "", "where soak writes its heap profiles (default: a new temporary directory)")
	hostileRounds := fs.Int("hostile-rounds", 20, "questions asked quiet and again during the uploads, for hostileuploads")
	hostileUploaders := fs.Int("hostile-uploaders", 4, "concurrent uploaders of expensive files, for hostileuploads")
	hostileWarmup := fs.Duration("hostile-warmup", 10*time.Second, "how long the uploads run before the asks during them, for hostileuploads")
	profileDir := fs.String("profile-dir", "", "for throughput, with --duration: write the server's CPU profile and its allocation profiles before and after the timed asks here, and list PostgreSQL's statements by time (pg_stat_statements, when shared_preload_libraries loads it); for page: a CPU profile of 10 s of page loads after the measured ones; for ws: the server's heap before and while the connections are held")
	out := fs.String("out", "", "also write the report to this file")
	serverBin := fs.String("server-bin", "", "the ragchat binary the child servers run (default: ragchat beside this executable, as `make bench` builds them into bin/; else one built with go build when run inside the ragchat module)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o := benchOptions{only: map[string]bool{}, databaseURL: *dbURL, rounds: *rounds, conns: *conns,
		messages: *messages, pageRuns: *pageRuns, ttft: *ttft, out: *out, serverBin: *serverBin,
		natsURL: *natsURL, instances: *instances, cancels: *cancels, answerBytes: *answerBytes, deltaWindow: *deltaWindow, deltaBudget: *deltaBudget,
		workers: *workers, asks: *asks, duration: *duration, stmtAsks: *stmtAsks, contextAsks: *ctxAsks,
		soakDuration: *soakDuration, soakRounds: *soakRounds, soakWorkers: *soakWorkers, soakUsers: *soakUsers, soakTurns: *soakTurns,
		soakIdle: *soakIdle, soakProfiles: *soakProfiles, profileDir: *profileDir,
		hostileRounds: *hostileRounds, hostileUploaders: *hostileUploaders, hostileWarmup: *hostileWarmup, args: args}
	for _, name := range strings.Split(*only, ",") {
		name = strings.TrimSpace(name)
		if !slices.ContainsFunc(singleParts, func(p benchPart) bool { return p.name == name }) && !slices.Contains(crossParts, name) {
			return usagef("unknown part %q in --only", name)
		}
		o.only[name] = true
	}
	if slices.ContainsFunc(timedParts, func(p string) bool { return o.only[p] }) {
		o.only["floor"] = true
	}
	for _, s := range strings.Split(*ctxRounds, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return usagef("bad --context-rounds %q", *ctxRounds)
		}
		o.contextRounds = append(o.contextRounds, n)
	}
	if o.workers < 1 || o.asks < 1 || o.stmtAsks < 1 || o.contextAsks < 1 {
		return usagef("--workers, --asks, --stmt-asks and --context-asks must be at least 1")
	}
	if o.profileDir != "" && o.duration <= 0 && o.only["throughput"] {
		return usagef("--profile-dir needs --duration: the CPU profile covers the timed asks")
	}
	if o.hostileRounds < 1 || o.hostileUploaders < 1 || o.hostileWarmup < 0 {
		return usagef("--hostile-rounds and --hostile-uploaders must be at least 1, --hostile-warmup not negative")
	}
	if o.soakRounds < 1 || o.soakWorkers < 1 || o.soakUsers < 1 || o.soakTurns < 1 || o.soakDuration <= 0 {
		return usagef("--soak-rounds, --soak-workers, --soak-users, --soak-turns and --soak-duration must be positive")
	}
	for _, s := range strings.Split(*conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return usagef("bad --concurrency %q", *conc)
		}
		o.concurrency = append(o.concurrency, n)
	}
	for _, b := range strings.Split(*brokers, ",") {
		switch b = strings.TrimSpace(b); b {
		case "memory", "postgres", "nats":
			o.brokers = append(o.brokers, b)
		default:
			return usagef("bad --brokers %q: memory, postgres or nats", *brokers)
		}
	}
	cross := slices.ContainsFunc(crossParts, func(p string) bool { return o.only[p] })
	if cross {
		switch {
		case o.databaseURL == "":
			return usagef("lag and cancel run several servers on one database: --database-url is required")
		case o.instances < 2:
			return usagef("--instances must be at least 2")
		case o.cancels < 1 || o.answerBytes < 8:
			return usagef("--cancels must be at least 1 and --answer-bytes at least 8")
		case slices.Contains(o.brokers, "nats") && o.natsURL == "":
			return usagef("the nats broker needs a NATS server: --nats-url, or run `go run ./internal/tools/natsserver -- ragchat-bench …`")
		}
	}

	fx, err := newBenchFixture(ctx, o, stderr)
	if err != nil {
		return err
	}
	defer fx.close()
	var report strings.Builder
	fmt.Fprintf(&report, "Measured %s on %s with %s; fake model TTFT %s.\n\n", time.Now().UTC().Format("2006-01-02"), machine(), fx.dbKind, o.ttft)
	if slices.ContainsFunc(singleParts, func(p benchPart) bool { return o.only[p.name] }) {
		if err := runSingleParts(ctx, fx, o, &report, stderr); err != nil {
			return err
		}
	}
	if cross {
		if err := benchCross(ctx, fx, o, &report, stderr); err != nil {
			return err
		}
	}
	fx.results.writeTargets(&report)
	fmt.Fprint(stdout, report.String())
	if o.out != "" {
		return os.WriteFile(o.out, []byte(report.String()), 0o644)
	}
	return nil
}

// runSingleParts runs the selected single-instance parts in order: those
// with the fake model against one child server, then those with the offline
// model against another (each stopped before the next starts, so that they
// never share the machine).
func runSingleParts(ctx context.Context, fx *benchFixture, o benchOptions, report, stderr io.Writer) error {
	var selected []benchPart
	for _, p := range singleParts {
		if o.only[p.name] {
			selected = append(selected, p)
		}
	}
	var env *benchEnv
	defer func() {
		if env != nil {
			env.close()
		}
	}()
	for i, p := range selected {
		offline := p.offline
		if p.name == "floor" && i+1 < len(selected) {
			offline = selected[i+1].offline // floor needs no model: no extra child
		}
		if env == nil || (env.kb != uuid.Nil) != offline || p.name == "soak" || env.soak {
			if env != nil {
				env.close()
				env = nil
			}
			var err error
			if env, err = startBenchEnv(ctx, fx, offline, p.name == "soak", o.profileDir != ""); err != nil {
				return err
			}
		}
		fmt.Fprintf(stderr, "bench: %s …\n", p.name)
		if err := p.run(ctx, env, o, report); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
	}
	return nil
}
