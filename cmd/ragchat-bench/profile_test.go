package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/testdb"
)

// TestBenchThroughputProfileSmoke runs `ragchat-bench --only throughput
// --duration 2s --profile-dir DIR` on SQLite and on PostgreSQL and asserts
// that the server's CPU profile and its allocation profiles before and
// after the timed asks are written and named in the report, and that a
// database without pg_stat_statements loaded (the test clusters) says why
// it lists no statements instead of failing (a cluster that loads it lists
// them). Without --duration the flag is refused.
func TestBenchThroughputProfileSmoke(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"--only", "throughput", "--workers", "2", "--duration", "2s", "--profile-dir", dir}
			if backend == "postgres" {
				args = append(args, "--database-url", testdb.PostgresURL(t))
			}
			report := runBench(t, args...)
			for _, name := range []string{"throughput-cpu.pb.gz", "throughput-allocs-before.pb.gz", "throughput-allocs-after.pb.gz"} {
				fi, err := os.Stat(filepath.Join(dir, name))
				if err != nil || fi.Size() == 0 {
					t.Errorf("%s: want a profile, got %v", name, err)
				}
				if !strings.Contains(report, filepath.Join(dir, name)) {
					t.Errorf("the report does not name %s:\n%s", name, report)
				}
			}
			if !strings.Contains(report, "No statement statistics (") && !strings.Contains(report, "statements with the most execution time") {
				t.Errorf("want the statements, or the reason none are listed:\n%s", report)
			}
		})
	}
	t.Run("needs --duration", func(t *testing.T) {
		cmd := exec.Command(binary, "--only", "throughput", "--profile-dir", t.TempDir())
		cmd.Env = harnessEnv()
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "--profile-dir needs --duration") {
			t.Fatalf("want a usage error, got %v:\n%s", err, out)
		}
	})
}

// TestBenchPageProfileSmoke runs `ragchat-bench --only page --profile-dir
// DIR` and asserts that the server's CPU profile over the extra page loads
// is written and named in the report; the page part needs no --duration.
func TestBenchPageProfileSmoke(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	report := runBench(t, "--only", "page", "--messages", "200", "--page-runs", "20", "--profile-dir", dir)
	path := filepath.Join(dir, "page-cpu.pb.gz")
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Errorf("want a profile, got %v", err)
	}
	if !strings.Contains(report, path) {
		t.Errorf("the report does not name %s:\n%s", path, report)
	}
}

// TestBenchIdleWSProfileSmoke runs `ragchat-bench --only ws --profile-dir
// DIR` and asserts that the server's heap profiles before and while the
// connections are held are written and named in the report.
func TestBenchIdleWSProfileSmoke(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	report := runBench(t, "--only", "ws", "--conns", "20", "--profile-dir", dir)
	for _, name := range []string{"ws-heap-before.pb.gz", "ws-heap-after.pb.gz"} {
		path := filepath.Join(dir, name)
		if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
			t.Errorf("%s: want a profile, got %v", name, err)
		}
		if !strings.Contains(report, path) {
			t.Errorf("the report does not name %s:\n%s", path, report)
		}
	}
}
