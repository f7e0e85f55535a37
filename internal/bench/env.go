package bench

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
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/auth"
	"github.com/ragchat/ragchat/internal/llm/llmfake"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/store"
)

// benchTenant is the tenant the benchmarks provision (without stored
// settings, so the child's generous rate limits apply).
const benchTenant = "bench"

// benchFixture is what every child server of one bench run shares: a fake
// model, the JWT secret, a working directory and the database, provisioned
// once with the bench tenant.
type benchFixture struct {
	server string // the ragchat binary the children run (serverBinary)
	dir    string
	key    string
	dbURL  string // empty for SQLite
	dbKind string
	fake   *llmfake.Server
	issuer *auth.Issuer
	stderr io.Writer
	window time.Duration // RAGCHAT_DELTA_WINDOW; negative: the default
	budget time.Duration // RAGCHAT_DELTA_BUDGET; negative: the default
	// offlineKB is the knowledge base ingested with the offline model's
	// embeddings (uuid.Nil until an offline part needs it).
	offlineKB uuid.UUID
	results   *benchResults // what the Targets table reads
}

// newBenchFixture finds (or builds) the server binary, starts the fake
// model and provisions the bench tenant with `ragchat ingest`, run as a
// child process of the server binary.
func newBenchFixture(ctx context.Context, o benchOptions, stderr io.Writer) (*benchFixture, error) {
	dir, err := os.MkdirTemp("", "ragchat-bench-")
	if err != nil {
		return nil, err
	}
	server, err := serverBinary(ctx, o.serverBin, dir, stderr)
	if err != nil {
		_ = os.RemoveAll(dir)
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
	fx := &benchFixture{server: server, dir: dir, key: key, dbURL: o.databaseURL, dbKind: "SQLite", fake: fake,
		issuer: auth.NewDevIssuer([]byte(key), ""), stderr: stderr, window: o.deltaWindow, budget: o.deltaBudget,
		results: newBenchResults()}
	if o.databaseURL != "" {
		fx.dbKind = "PostgreSQL"
	}
	doc := filepath.Join(dir, "bench.md")
	if err := os.WriteFile(doc, []byte(benchDocument()), 0o644); err != nil {
		fx.close()
		return nil, err
	}
	ingest := exec.CommandContext(ctx, server, "ingest", "--tenant", benchTenant, "--kb", "Bench", doc)
	ingest.Env = fx.vars(fx.dataDir(""))
	if out, err := ingest.CombinedOutput(); err != nil {
		fx.close()
		return nil, fmt.Errorf("ingest: %v\n%s", err, out)
	}
	return fx, nil
}

// dataDir is a child's data directory: the fixture's own for SQLite (the
// database file lives there), a directory per server name on PostgreSQL
// (each keeps its own instance identity).
func (f *benchFixture) dataDir(name string) string {
	if f.dbURL == "" || name == "" {
		return f.dir
	}
	return filepath.Join(f.dir, "server-"+name)
}

// vars is the environment of a child command with data directory dataDir.
func (f *benchFixture) vars(dataDir string, extra ...string) []string {
	vars := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + f.dir,
		"RAGCHAT_DATA_DIR=" + dataDir, "RAGCHAT_ADDR=127.0.0.1:0", "RAGCHAT_JWT_HS256_SECRET=" + f.key,
		"RAGCHAT_BROKER_SECRET=broker-" + f.key, // shared by the cluster's servers, which have data directories of their own
		"OPENAI_BASE_URL=" + f.fake.URL, "OPENAI_API_KEY=bench", "OPENAI_CHAT_MODEL=bench-model",
		"RAGCHAT_LOAD_DEMO=false", "RAGCHAT_ASK_BURST=1000000", "RAGCHAT_ASK_RATE_PER_MINUTE=1000000",
		"RAGCHAT_MAX_SUBSCRIPTIONS_PER_CONNECTION=10", "RAGCHAT_DB_MAX_OPEN_CONNS=40",
	}
	if v := os.Getenv("RAGCHAT_DEBUG_ADDR"); v != "" {
		vars = append(vars, "RAGCHAT_DEBUG_ADDR="+v) // profile the child
	}
	for _, name := range []string{"RAGCHAT_MAX_RUNNING_ANSWERS", "RAGCHAT_ANSWER_QUEUE", "RAGCHAT_ANSWER_QUEUE_WAIT"} {
		if v, ok := os.LookupEnv(name); ok {
			vars = append(vars, name+"="+v) // measure with and without admission control
		}
	}
	if f.dbURL != "" {
		vars = append(vars, "DATABASE_URL="+f.dbURL)
	}
	if f.budget >= 0 {
		vars = append(vars, "RAGCHAT_DELTA_BUDGET="+f.budget.String())
	}
	if f.window >= 0 {
		vars = append(vars, "RAGCHAT_DELTA_WINDOW="+f.window.String())
	}
	return append(vars, extra...)
}

// token mints a token for user of the bench tenant.
func (f *benchFixture) token(user string, roles ...string) string {
	if len(roles) == 0 {
		roles = []string{"member"}
	}
	tok, err := f.issuer.Mint(auth.Claims{Tenant: benchTenant, Roles: roles,
		RegisteredClaims: jwt.RegisteredClaims{Subject: user}}, 6*time.Hour)
	if err != nil {
		panic(err) // the claims are constant and valid
	}
	return tok
}

// close stops the fake model and removes the working directory. Stop the
// servers first.
func (f *benchFixture) close() {
	f.fake.Close()
	_ = os.RemoveAll(f.dir)
}

// benchServer is one child `ragchat serve`.
type benchServer struct {
	fx    *benchFixture
	name  string
	url   string // GraphQL endpoint
	base  string // http://host:port
	child *exec.Cmd
	done  chan error
	// debug receives the child's pprof address (RAGCHAT_DEBUG_ADDR) once
	// it has logged it.
	debug chan string
}

// startServer starts `ragchat serve` named name (for its data directory
// and log lines) with extra environment, and waits until it listens.
func (f *benchFixture) startServer(ctx context.Context, name string, extra ...string) (*benchServer, error) {
	return f.launch(ctx, name, f.vars(f.dataDir(name), extra...))
}

// launch starts `ragchat serve` named name with environment vars and waits
// until it listens.
func (f *benchFixture) launch(ctx context.Context, name string, vars []string) (*benchServer, error) {
	dir := f.dataDir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s := &benchServer{fx: f, name: name, done: make(chan error, 1), debug: make(chan string, 1)}
	s.child = exec.Command(f.server, "serve")
	s.child.Env = vars
	pipe, err := s.child.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := s.child.Start(); err != nil {
		return nil, err
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var rec struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &rec) == nil {
				switch rec.Msg {
				case "listening":
					addr <- rec.Addr
				case "serving pprof":
					select {
					case s.debug <- rec.Addr:
					default:
					}
				}
				if strings.Contains(sc.Text(), `"level":"ERROR"`) {
					fmt.Fprintf(f.stderr, "child %s: %s\n", name, sc.Text())
				}
			}
		}
	}()
	go func() { s.done <- s.child.Wait() }()
	select {
	case a := <-addr:
		s.base = "http://" + a
		s.url = s.base + "/graphql"
		return s, nil
	case err := <-s.done:
		return nil, fmt.Errorf("ragchat serve %s exited: %v", name, err)
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	case <-time.After(2 * time.Minute):
		s.stop()
		return nil, errors.New("ragchat serve did not start")
	}
}

// client returns a GraphQL client of this server acting as user of the
// bench tenant.
func (s *benchServer) client(user string, roles ...string) *gqlclient.Client {
	return gqlclient.New(s.url, s.fx.token(user, roles...))
}

// pid is the child server's process id.
func (s *benchServer) pid() int { return s.child.Process.Pid }

// stop sends SIGTERM and waits for the child (killing it after 30 s).
func (s *benchServer) stop() {
	if s == nil || s.child == nil || s.child.Process == nil {
		return
	}
	_ = s.child.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.child.Process.Kill()
		<-s.done
	}
	s.child = nil
}

// benchEnv is one child server, the fixture it shares and a direct
// connection to the same database: what the single-instance parts use.
type benchEnv struct {
	*benchFixture
	*benchServer
	db *store.DB
	// kb is the knowledge base the parts' conversations search: uuid.Nil
	// (the tenant's first, embedded by the fake model) or, with the
	// offline model, the fixture's offlineKB.
	kb uuid.UUID
	// soak is set on a child started for the soak part alone (with
	// pprof on a private port).
	soak bool
	// debugAddr is the child's pprof address once pprofAddr has read it.
	debugAddr string
}

// startBenchEnv starts one `ragchat serve` on the fixture's database (with
// the broker serve picks by default) and opens the database directly. With
// offline set the child answers with the offline model at zero delay
// (offline.go) instead of the fake. With soak set it is the soak's
// own child (offline), serving pprof on a free loopback port; with pprof
// set the child serves it too (--profile-dir).
func startBenchEnv(ctx context.Context, fx *benchFixture, offline, soak, pprof bool) (*benchEnv, error) {
	var (
		srv *benchServer
		err error
	)
	switch {
	case soak:
		srv, err = fx.startOfflineServer(ctx, "S", "RAGCHAT_DEBUG_ADDR=127.0.0.1:0")
	case offline && pprof:
		srv, err = fx.startOfflineServer(ctx, "O", "RAGCHAT_DEBUG_ADDR=127.0.0.1:0")
	case offline:
		srv, err = fx.startOfflineServer(ctx, "O")
	case pprof:
		srv, err = fx.startServer(ctx, "A", "RAGCHAT_DEBUG_ADDR=127.0.0.1:0")
	default:
		srv, err = fx.startServer(ctx, "A")
	}
	if err != nil {
		return nil, err
	}
	env := &benchEnv{benchFixture: fx, benchServer: srv, soak: soak}
	if offline {
		env.kb = fx.offlineKB
	}
	env.db, err = store.Open(ctx, store.Config{DatabaseURL: fx.dbURL, SQLitePath: filepath.Join(fx.dir, "ragchat.db"), MaxOpenConns: 4})
	if err != nil {
		env.close()
		return nil, err
	}
	return env, nil
}

// close stops the child and closes the database; the fixture stays.
func (e *benchEnv) close() {
	e.benchServer.stop()
	if e.db != nil {
		_ = e.db.Close()
	}
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

// pprofAddr is the child's pprof address (RAGCHAT_DEBUG_ADDR), which it
// announces once after it starts (kept for later calls); a child started
// without pprof never does.
func (env *benchEnv) pprofAddr() (string, error) {
	if env.debugAddr != "" {
		return env.debugAddr, nil
	}
	select {
	case addr := <-env.debug:
		env.debugAddr = addr
		return addr, nil
	case <-time.After(30 * time.Second):
		return "", errors.New("the child server serves no pprof (RAGCHAT_DEBUG_ADDR)")
	}
}
