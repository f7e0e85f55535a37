package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/ragchat/ragchat/internal/auth"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/testbin"
	"github.com/ragchat/ragchat/internal/testdb"
)

// The end-to-end suite runs the real `ragchat` binary against a fresh
// PostgreSQL database and drives it through real transports.

// binary is the ragchat binary, built once by TestMain (or prebuilt:
// testbin).
var binary string

// secret is the HS256 secret the test servers verify tokens with.
const secret = "e2e-secret-0123456789abcdef0123456789abcdef"

// brokerSecret is the broker secret the test servers share.
const brokerSecret = "e2e-broker-secret-0123456789abcdef0123456789"

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ragchat-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary, err = testbin.Path(dir, "ragchat", ".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "build ragchat:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// docsDir holds the demo documents the suite ingests into its tenants.
func docsDir(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "internal", "knowledge", "demo", "docs")
}

// process is a running `ragchat serve`.
type process struct {
	t      testing.TB
	cmd    *exec.Cmd
	url    string
	dbURL  string
	stdout *syncBuffer
	stderr *syncBuffer
	done   chan error
}

// syncBuffer is a bytes.Buffer safe for a writer and readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// baseEnv is the environment of every command the suite runs.
func baseEnv(t testing.TB, dbURL string, extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"DATABASE_URL=" + dbURL,
		"RAGCHAT_DATA_DIR=" + t.TempDir(),
		"RAGCHAT_JWT_HS256_SECRET=" + secret,
		"RAGCHAT_BROKER_SECRET=" + brokerSecret, // replicas have data directories of their own
		"RAGCHAT_ADDR=127.0.0.1:0",
		"RAGCHAT_OFFLINE_TOKEN_DELAY=4ms",
		"RAGCHAT_LOG_LEVEL=info",
		"RAGCHAT_ASK_BURST=1000",
	}
	return append(env, extra...)
}

// runCLI runs a ragchat subcommand to completion and returns its stdout.
func runCLI(t testing.TB, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("ragchat %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// startServer provisions a fresh PostgreSQL database (migrated with
// `ragchat migrate up`, tenants acme and globex ingested with `ragchat
// ingest`) and starts `ragchat serve` on it.
func startServer(t testing.TB, extraEnv ...string) *process {
	t.Helper()
	dbURL := testdb.PostgresURL(t)
	env := baseEnv(t, dbURL, extraEnv...)
	provision(t, env)
	return launch(t, dbURL, env)
}

// provision migrates the database of env and ingests the demo documents
// into tenants acme and globex.
func provision(t testing.TB, env []string) {
	t.Helper()
	if out := runCLI(t, env, "migrate", "up"); !strings.Contains(out, "migration version") {
		t.Fatalf("migrate up printed %q", out)
	}
	docs := docsDir(t)
	for _, tenant := range []string{"acme", "globex"} {
		runCLI(t, env, "ingest", "--tenant", tenant, "--kb", "Help Center",
			filepath.Join(docs, "zh", "upload-limits.md"), filepath.Join(docs, "zh", "refunds.md"), filepath.Join(docs, "en", "upload-limits.md"))
		runCLI(t, env, "ingest", "--tenant", tenant, "--kb", "Help Center", "--groups", "ops",
			filepath.Join(docs, "zh", "ops-upload-runbook.md"))
	}
}

// launch starts `ragchat serve` with env on the database at dbURL and
// waits until it listens.
func launch(t testing.TB, dbURL string, env []string) *process {
	t.Helper()
	p := &process{t: t, dbURL: dbURL, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan error, 1)}
	p.cmd = exec.Command(binary, "serve")
	p.cmd.Env = env
	p.cmd.Stdout = p.stdout
	stderrPipe, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderrPipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			_, _ = p.stderr.Write([]byte(line + "\n"))
			var rec struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "listening" {
				addr <- rec.Addr
			}
		}
	}()
	go func() { p.done <- p.cmd.Wait() }()
	select {
	case a := <-addr:
		p.url = "http://" + a + "/graphql"
	case err := <-p.done:
		t.Fatalf("ragchat serve exited: %v\n%s", err, p.stderr.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("ragchat serve did not start\n%s", p.stderr.String())
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.done:
			case <-time.After(30 * time.Second):
				_ = p.cmd.Process.Kill()
				<-p.done
			}
		}
		if t.Failed() {
			t.Logf("ragchat serve stderr:\n%s", lastLines(p.stderr.String(), 80))
		}
	})
	return p
}

// stop sends SIGTERM and returns the exit error (nil on a clean exit).
func (p *process) stop(timeout time.Duration) error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		return err
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		return fmt.Errorf("did not exit within %s", timeout)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// token mints a token for user of tenant.
func token(t testing.TB, tenant, user string, roles []string, groups ...string) string {
	t.Helper()
	tok, err := auth.NewDevIssuer([]byte(secret), "").Mint(auth.Claims{Tenant: tenant, Roles: roles, Groups: groups,
		RegisteredClaims: jwt.RegisteredClaims{Subject: user}}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// client returns a client of the process for user of tenant.
func (p *process) client(t testing.TB, tenant, user string, roles ...string) *gqlclient.Client {
	if len(roles) == 0 {
		roles = []string{"member"}
	}
	return gqlclient.New(p.url, token(t, tenant, user, roles))
}

func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}
