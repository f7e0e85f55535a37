package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/ragchat/ragchat/internal/auth"
	"github.com/ragchat/ragchat/internal/llm/llmfake"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/store"
)

// benchTenant is the tenant the benchmarks provision (without stored
// settings, so the child's generous rate limits apply).
const benchTenant = "bench"

// benchEnv is a child `ragchat serve` on a fresh database, a fake model
// and a direct connection to the same database.
type benchEnv struct {
	url    string // GraphQL endpoint
	base   string // http://host:port
	dbKind string
	fake   *llmfake.Server
	issuer *auth.Issuer
	db     *store.DB
	child  *exec.Cmd
	done   chan error
	dir    string
}

// startBenchEnv provisions the bench tenant with `ragchat ingest` and
// starts `ragchat serve`, both as child processes of this binary.
func startBenchEnv(ctx context.Context, o benchOptions, stderr io.Writer) (*benchEnv, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "ragchat-bench-")
	if err != nil {
		return nil, err
	}
	secret := make([]byte, 24)
	_, _ = rand.Read(secret)
	key := hex.EncodeToString(secret)
	fake := llmfake.New()
	fake.SetEmbeddingDims(1) // every chunk scores ±1: retrieval always finds evidence
	fake.SetFirstChunkDelay(o.ttft)
	fake.SetChunkRunes(4)
	fake.SetChunkDelay(time.Millisecond)
	fake.SetReply(benchAnswer(600))

	env := &benchEnv{fake: fake, issuer: auth.NewDevIssuer([]byte(key), ""), dir: dir, done: make(chan error, 1), dbKind: "SQLite"}
	vars := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + dir,
		"RAGCHAT_DATA_DIR=" + dir, "RAGCHAT_ADDR=127.0.0.1:0", "RAGCHAT_JWT_HS256_SECRET=" + key,
		"OPENAI_BASE_URL=" + fake.URL, "OPENAI_API_KEY=bench", "OPENAI_CHAT_MODEL=bench-model",
		"RAGCHAT_LOAD_DEMO=false", "RAGCHAT_ASK_BURST=1000000", "RAGCHAT_ASK_RATE_PER_MINUTE=1000000",
		"RAGCHAT_MAX_SUBSCRIPTIONS_PER_CONNECTION=10", "RAGCHAT_DB_MAX_OPEN_CONNS=40",
	}
	if v := os.Getenv("RAGCHAT_DEBUG_ADDR"); v != "" {
		vars = append(vars, "RAGCHAT_DEBUG_ADDR="+v) // profile the child
	}
	if o.databaseURL != "" {
		vars = append(vars, "DATABASE_URL="+o.databaseURL)
		env.dbKind = "PostgreSQL"
	}
	doc := filepath.Join(dir, "bench.md")
	if err := os.WriteFile(doc, []byte(benchDocument()), 0o644); err != nil {
		env.close()
		return nil, err
	}
	ingest := exec.CommandContext(ctx, self, "ingest", "--tenant", benchTenant, "--kb", "Bench", doc)
	ingest.Env = vars
	if out, err := ingest.CombinedOutput(); err != nil {
		env.close()
		return nil, fmt.Errorf("ingest: %v\n%s", err, out)
	}
	env.child = exec.Command(self, "serve")
	env.child.Env = vars
	pipe, err := env.child.StderrPipe()
	if err != nil {
		env.close()
		return nil, err
	}
	if err := env.child.Start(); err != nil {
		env.close()
		return nil, err
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var rec struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &rec) == nil {
				if rec.Msg == "listening" {
					addr <- rec.Addr
				}
				if strings.Contains(sc.Text(), `"level":"ERROR"`) {
					fmt.Fprintln(stderr, "child:", sc.Text())
				}
			}
		}
	}()
	go func() { env.done <- env.child.Wait() }()
	select {
	case a := <-addr:
		env.base = "http://" + a
		env.url = env.base + "/graphql"
	case err := <-env.done:
		env.close()
		return nil, fmt.Errorf("ragchat serve exited: %v", err)
	case <-time.After(2 * time.Minute):
		env.close()
		return nil, errors.New("ragchat serve did not start")
	}
	env.db, err = store.Open(ctx, store.Config{DatabaseURL: o.databaseURL, SQLitePath: filepath.Join(dir, "ragchat.db"), MaxOpenConns: 4})
	if err != nil {
		env.close()
		return nil, err
	}
	return env, nil
}

// client returns a GraphQL client acting as user of the bench tenant.
func (e *benchEnv) client(user string, roles ...string) *gqlclient.Client {
	if len(roles) == 0 {
		roles = []string{"member"}
	}
	tok, err := e.issuer.Mint(auth.Claims{Tenant: benchTenant, Roles: roles,
		RegisteredClaims: jwt.RegisteredClaims{Subject: user}}, 6*time.Hour)
	if err != nil {
		panic(err) // the claims are constant and valid
	}
	return gqlclient.New(e.url, tok)
}

// pid is the child server's process id.
func (e *benchEnv) pid() int { return e.child.Process.Pid }

// close stops the child, the fake model and removes the data.
func (e *benchEnv) close() {
	if e.child != nil && e.child.Process != nil {
		_ = e.child.Process.Signal(syscall.SIGTERM)
		select {
		case <-e.done:
		case <-time.After(30 * time.Second):
			_ = e.child.Process.Kill()
			<-e.done
		}
	}
	if e.db != nil {
		_ = e.db.Close()
	}
	e.fake.Close()
	_ = os.RemoveAll(e.dir)
}

// benchDocument is the knowledge the bench tenant searches.
func benchDocument() string {
	var b strings.Builder
	b.WriteString("# Bench handbook\n\n")
	for i := range 20 {
		fmt.Fprintf(&b, "## Section %d\n\nUploads of section %d are limited to %d MB; larger files get HTTP 413 and the code ERR_FILE_TOO_LARGE. "+
			"Refunds in section %d take %d business days.\n\n", i, i, 10+i, i, 3+i%5)
	}
	return b.String()
}

// benchAnswer is a model answer of about n bytes citing [C1].
func benchAnswer(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString("Uploads are limited to 20 MB per file; larger files are refused with HTTP 413 [C1]. ")
	}
	return b.String()[:n]
}

// machine describes the host briefly.
func machine() string {
	return fmt.Sprintf("%s/%s, %d CPUs, %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
}
