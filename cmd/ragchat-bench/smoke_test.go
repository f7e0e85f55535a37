package main_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"

	"github.com/ragchat/ragchat/internal/testdb"
)

// TestBenchCrossInstanceSmoke runs `ragchat-bench --only lag,cancel` with
// tiny sizes (one stream, one round, two cancels per target) on a fresh
// PostgreSQL database, for the memory, postgres and nats brokers (NATS
// in-process here), so that the benchmark code cannot rot. It asserts the
// report's shape and that every answer completed and every cancel closed
// the model request, never a duration.
func TestBenchCrossInstanceSmoke(t *testing.T) {
	dbURL := testdb.PostgresURL(t)
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	t.Cleanup(func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	if !ns.ReadyForConnections(time.Minute) {
		t.Fatal("the NATS server did not start")
	}

	report := runBench(t, "--only", "lag,cancel", "--brokers", "memory,postgres,nats",
		"--database-url", dbURL, "--nats-url", ns.ClientURL(),
		"--concurrency", "1", "--rounds", "1", "--answer-bytes", "80", "--cancels", "2")

	lag := benchTableRows(report, "| broker | instances | concurrent streams |")
	cancels := benchTableRows(report, "| broker | instances | cancel sent to |")
	wantLag := []string{"memory 1", "postgres 2", "nats 2"}
	wantCancel := []string{"memory A", "postgres B", "postgres A", "nats B", "nats A"}
	if len(lag) != len(wantLag) || len(cancels) != len(wantCancel) {
		t.Fatalf("want %d lag rows and %d cancel rows:\n%s", len(wantLag), len(wantCancel), report)
	}
	for i, row := range lag {
		// broker, instances, streams, answers, tokens, 6 figures, failed
		if got := row[0] + " " + row[1]; got != wantLag[i] || row[3] != "1" || row[4] == "0" || row[len(row)-1] != "0" {
			t.Errorf("lag row %q: want %s, one answer, some tokens, none failed", row, wantLag[i])
		}
		if (row[0] == "memory") != (row[7] == "–") {
			t.Errorf("lag row %q: only the single instance has no figure on B", row)
		}
	}
	for i, row := range cancels {
		// broker, instances, target, cancels, 5 figures, not closed, wrong
		if got := row[0] + " " + row[2][:1]; got != wantCancel[i] || row[3] != "2" || row[len(row)-2] != "0" || row[len(row)-1] != "0" {
			t.Errorf("cancel row %q: want %s, two cancels, each closing the model request and ending FAILED(CANCELLED)", row, wantCancel[i])
		}
	}
	if !strings.Contains(report, "ragchat-bench --only lag,cancel") {
		t.Errorf("the report does not say how to reproduce it:\n%s", report)
	}
}

// benchTableRows returns the cells of the body rows of the Markdown table whose
// header line starts with header.
func benchTableRows(report, header string) [][]string {
	var rows [][]string
	in := false
	for _, line := range strings.Split(report, "\n") {
		switch {
		case strings.HasPrefix(line, header):
			in = true
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "|"):
			var cells []string
			for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
			rows = append(rows, cells)
		case in:
			return rows
		}
	}
	return rows
}

// TestBenchFloorSmoke runs `ragchat-bench --only floor` on PostgreSQL, with
// the server binary named by --server-bin (the other smoke tests find it
// beside ragchat-bench), and asserts that the report has its three
// statements, each with figures; never a duration.
func TestBenchFloorSmoke(t *testing.T) {
	dbURL := testdb.PostgresURL(t)
	report := runBench(t, "--only", "floor", "--database-url", dbURL, "--server-bin", server)
	rows := benchTableRows(report, "| statement | mean |")
	if len(rows) != 3 {
		t.Fatalf("want 3 floor rows:\n%s", report)
	}
	for _, row := range rows {
		if len(row) != 5 || !strings.HasSuffix(row[1], " ms") || row[4] == "0" {
			t.Errorf("floor row %q: want a mean in ms and a positive rate", row)
		}
	}
}

// TestBenchOfflinePartsSmoke runs `ragchat-bench --only
// throughput,stmts,context` with tiny sizes on SQLite and on PostgreSQL, so
// that the parts and the Targets table cannot rot: floor runs first by
// itself, every ask completes, the server's statement counters and context
// assembly histogram are exported and move, and the Targets table has one
// row per target, those of parts not run saying so. It asserts counts and
// structure, never a duration.
func TestBenchOfflinePartsSmoke(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			args := []string{"--only", "throughput,stmts,context", "--workers", "2", "--asks", "4",
				"--stmt-asks", "1", "--context-rounds", "3,12", "--context-asks", "2"}
			dbURL := ""
			if backend == "postgres" {
				dbURL = testdb.PostgresURL(t)
				args = append(args, "--database-url", dbURL)
			}
			report := runBench(t, args...)
			if floor := benchTableRows(report, "| statement | mean |"); len(floor) != 3 {
				t.Errorf("floor did not run first by itself (want its 3 rows):\n%s", report)
			}
			if i, j := strings.Index(report, "### The floor"), strings.Index(report, "### Completed asks"); i < 0 || j < i {
				t.Errorf("floor is not the first part:\n%s", report)
			}

			// workers, completed, refused, failed, asks/s, 2 latencies, 3 CPU figures, ceiling
			tp := benchTableRows(report, "| workers | completed |")
			if len(tp) != 1 || len(tp[0]) != 11 || tp[0][0] != "2" || tp[0][1] != "4" || tp[0][3] != "0" || positive(tp[0][4]) <= 0 {
				t.Errorf("throughput: want one row of 2 workers, 4 completed asks, none failed, a positive rate: %q\n%s", tp, report)
			}
			st := benchTableRows(report, "| | least | most |")
			if len(st) != 3 || positive(st[0][1]) <= 0 || positive(st[1][1]) <= 0 || positive(st[0][1]) <= positive(st[1][1]) {
				t.Errorf("stmts: want whole-ask, ask-call and subscription rows, the whole ask counting more than the ask call, both positive: %q\n%s", st, report)
			}
			cx := benchTableRows(report, "| rounds | asks | mean |")
			if len(cx) != 2 || cx[0][0] != "3" || cx[1][0] != "12" || cx[0][1] != "2" || positive(cx[1][2]) <= 0 {
				t.Errorf("context: want rows for 3 and 12 rounds of 2 asks each with a mean: %q\n%s", cx, report)
			}

			targets := benchTableRows(report, "| what | measured | target | met? |")
			if len(targets) != 14 {
				t.Fatalf("want 14 target rows:\n%s", report)
			}
			notRun := 0
			for _, row := range targets {
				if strings.HasPrefix(row[1], "not run") {
					notRun++
					continue
				}
				if row[3] != "yes" && row[3] != "**no**" {
					t.Errorf("target row %q: want met? yes or no", row)
				}
				if strings.HasPrefix(row[0], "CPU per completed ask") && !strings.Contains(row[1], " + ") {
					t.Errorf("CPU row %q: want the server's and the rest's CPU per ask", row)
				}
			}
			// Not run: the two ttft rows, the page, the current path page,
			// the WebSocket memory, the wire bytes and the first token
			// during hostile uploads.
			if notRun != 7 {
				t.Errorf("want 7 rows not run, got %d:\n%s", notRun, report)
			}
			if !strings.Contains(report, "× `SELECT 1`") {
				t.Errorf("no floor multiple in the Targets table:\n%s", report)
			}
		})
	}
}

// positive parses the leading number of a table cell ("12.5 ms", "30.4"),
// or returns -1.
func positive(cell string) float64 {
	f := strings.Fields(cell)
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}

// TestBenchSoakSmoke runs `ragchat-bench --only soak` with two tiny soaks
// on SQLite, so that the soak part cannot rot: every ask completes, each
// step reads the child's memory, the cache table lists the server's
// caches with their bounds, and a heap profile is written per step. It
// asserts counts and structure, never a size or a duration.
func TestBenchSoakSmoke(t *testing.T) {
	profiles := t.TempDir()
	report := runBench(t, "--only", "soak", "--soak-duration", "1s", "--soak-rounds", "2",
		"--soak-workers", "1", "--soak-users", "2", "--soak-turns", "2", "--soak-idle", "0", "--soak-profiles", profiles)
	// after, asks, failed, asks/s, heap, resident set, goroutines
	steps := benchTableRows(report, "| after | asks | failed |")
	want := []string{"warm-up", "soak 1", "soak 2"}
	if len(steps) != len(want) {
		t.Fatalf("want %d steps:\n%s", len(want), report)
	}
	for i, row := range steps {
		if len(row) != 7 || row[0] != want[i] || positive(row[1]) <= 0 || row[2] != "0" || !strings.HasSuffix(row[4], " MiB") || positive(row[4]) <= 0 {
			t.Errorf("step %q: want %s with asks, none failed and a heap size", row, want[i])
		}
	}
	caches := map[string][]string{}
	for _, row := range benchTableRows(report, "| cache | bound |") {
		caches[row[0]] = row
	}
	for name, bound := range map[string]string{"broker_idle_topics": "1024", "chat_outcomes": "4096", "auth_tokens": "4096", "knowledge_sqlite_vectors": "20000", "chat_runs": "–"} {
		if row, ok := caches[name]; !ok || row[1] != bound || len(row) != 2+len(want) {
			t.Errorf("cache %s: want bound %s and one count per step, got %q", name, bound, row)
		}
	}
	for _, f := range []string{"heap-0-warm.pb.gz", "heap-1-soak.pb.gz", "heap-2-soak.pb.gz"} {
		if st, err := os.Stat(filepath.Join(profiles, f)); err != nil || st.Size() == 0 {
			t.Errorf("heap profile %s: %v", f, err)
		}
	}
}

// TestBenchHostileUploadsSmoke runs `ragchat-bench --only hostileuploads`
// with two asks a phase and one uploader on SQLite, so that the part
// cannot rot: both phases have their samples, the uploads were answered
// (some accepted), the accepted files are listed by their state, and the
// Targets table has the part's ratio. It asserts counts and structure,
// never a duration.
func TestBenchHostileUploadsSmoke(t *testing.T) {
	report := runBench(t, "--only", "hostileuploads", "--hostile-rounds", "2", "--hostile-uploaders", "1", "--hostile-warmup", "2s")
	phases := benchTableRows(report, "| phase | samples |")
	if len(phases) != 2 || phases[0][1] != "2" || phases[1][1] != "2" {
		t.Errorf("want the quiet and the burst rows with 2 samples each: %q\n%s", phases, report)
	}
	answers := benchTableRows(report, "| upload answer | count |")
	accepted := false
	for _, row := range answers {
		accepted = accepted || (row[0] == "201" && positive(row[1]) > 0)
	}
	if !accepted {
		t.Errorf("no upload was accepted: %q\n%s", answers, report)
	}
	if files := benchTableRows(report, "| accepted file → state when the burst ended |"); len(files) == 0 {
		t.Errorf("no accepted file listed:\n%s", report)
	}
	for _, row := range benchTableRows(report, "| what | measured | target | met? |") {
		if strings.HasPrefix(row[0], "first token during a burst of hostile uploads") {
			if strings.HasPrefix(row[1], "not run") || (row[3] != "yes" && row[3] != "**no**") {
				t.Errorf("hostile uploads row %q: want a ratio and yes or no", row)
			}
			return
		}
	}
	t.Errorf("no hostile uploads row in the Targets table:\n%s", report)
}
