package testdb

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lib/pq"
)

// EnvPGBinDir names the environment variable holding the PostgreSQL 15 bin
// directory (initdb, pg_ctl), as for scripts/pgtest.sh.
const EnvPGBinDir = "PGTEST_PG_BINDIR"

// Cluster is a private PostgreSQL cluster owned by one test, which the test
// may stop and start again (on the same port and data directory) to
// simulate a database outage. It is removed when the test ends.
//
// It runs the same commands as scripts/pgtest.sh: initdb and pg_ctl of
// PostgreSQL 15, as the postgres user when the test runs as root (initdb
// refuses root). pgvector must be installed (scripts/pgtest.sh ensure).
type Cluster struct {
	t    testing.TB
	bin  string
	dir  string
	data string
	port int
	// owner runs commands as the cluster's owner.
	owner []string
}

// StartCluster initialises and starts a private cluster. Like PostgresURL
// it fails the test when PostgreSQL is not installed, unless
// RAGCHAT_SKIP_POSTGRES=1 asks to skip; it skips when EnvBackends
// selects SQLite alone.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	skipUnlessPostgresRuns(t)
	bin := pgBinDir()
	if _, err := os.Stat(filepath.Join(bin, "initdb")); err != nil {
		if os.Getenv(EnvSkipPostgres) == "1" {
			t.Skipf("SKIPPING PostgreSQL cluster test: no initdb in %s and %s=1", bin, EnvSkipPostgres)
		}
		t.Fatalf("testdb: no PostgreSQL 15 in %s (run scripts/pgtest.sh ensure, or set %s)", bin, EnvPGBinDir)
	}
	// Not t.TempDir: its parents are private to root, and the postgres user
	// must reach the directory.
	dir, err := os.MkdirTemp("", "ragchat-cluster-")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{t: t, bin: bin, dir: dir, data: filepath.Join(dir, "data")}
	t.Cleanup(c.remove)
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("testdb: running as root needs the postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		c.owner = []string{"runuser", "-u", "postgres", "--"}
	}
	c.run("initdb", "-D", c.data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-locale", "--no-sync")
	conf := fmt.Sprintf(`
# ragchat test cluster (internal/testdb): fast, not durable
listen_addresses = '127.0.0.1'
unix_socket_directories = '%s'
max_connections = 100
fsync = off
synchronous_commit = off
full_page_writes = off
log_min_messages = warning
`, dir)
	f, err := os.OpenFile(filepath.Join(c.data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(conf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	for try := 1; ; try++ {
		c.port = freePort(t)
		if err := c.pgctl("start", "-o", "-p "+strconv.Itoa(c.port)); err == nil {
			break
		} else if try == 5 {
			t.Fatalf("testdb: pg_ctl start: %v", err)
		}
	}
	c.exec("CREATE EXTENSION IF NOT EXISTS vector", "template1")
	return c
}

// URL is the URL of the cluster's postgres database, as superuser.
func (c *Cluster) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
}

// Database creates a new database with pgvector on the cluster and returns
// its URL.
func (c *Cluster) Database() string {
	c.t.Helper()
	name := databaseName(c.t.Name())
	c.exec("CREATE DATABASE "+pq.QuoteIdentifier(name), "postgres")
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, name)
}

// Stop shuts the cluster down (fast mode: sessions are terminated, as when
// an administrator stops the server).
func (c *Cluster) Stop() {
	c.t.Helper()
	if err := c.pgctl("stop", "-m", "fast"); err != nil {
		c.t.Fatalf("testdb: pg_ctl stop: %v", err)
	}
}

// Start starts the stopped cluster again on the same port.
func (c *Cluster) Start() {
	c.t.Helper()
	if err := c.pgctl("start", "-o", "-p "+strconv.Itoa(c.port)); err != nil {
		c.t.Fatalf("testdb: pg_ctl start: %v", err)
	}
}

// pgctl runs pg_ctl ACTION and waits for it to finish.
func (c *Cluster) pgctl(action string, args ...string) error {
	full := append([]string{action, "-D", c.data, "-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "60", "-s"}, args...)
	out, err := c.command("pg_ctl", full...).CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		return fmt.Errorf("%w: %s\nserver log:\n%s", err, out, tail(string(log), 20))
	}
	return nil
}

func (c *Cluster) run(name string, args ...string) {
	c.t.Helper()
	if out, err := c.command(name, args...).CombinedOutput(); err != nil {
		c.t.Fatalf("testdb: %s: %v\n%s", name, err, out)
	}
}

func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	argv := append(append(append([]string(nil), c.owner...), filepath.Join(c.bin, name)), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = c.dir
	return cmd
}

// exec runs one statement on database db of the cluster.
func (c *Cluster) exec(stmt, db string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), createTimeout)
	defer cancel()
	conn, err := sql.Open("postgres", fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db))
	if err != nil {
		c.t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, stmt); err != nil {
		c.t.Fatalf("testdb: %s: %v", stmt, err)
	}
}

// remove stops the cluster if it runs and deletes its directory.
func (c *Cluster) remove() {
	if _, err := os.Stat(filepath.Join(c.data, "postmaster.pid")); err == nil {
		_ = c.pgctl("stop", "-m", "immediate")
	}
	_ = os.RemoveAll(c.dir)
}

// pgBinDir is the directory of PostgreSQL 15's initdb and pg_ctl.
func pgBinDir() string {
	if d := os.Getenv(EnvPGBinDir); d != "" {
		return d
	}
	if _, err := os.Stat("/usr/lib/postgresql/15/bin/initdb"); err == nil {
		return "/usr/lib/postgresql/15/bin"
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p)
	}
	return "/usr/lib/postgresql/15/bin"
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
