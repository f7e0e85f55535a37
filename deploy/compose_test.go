package deploy_test

import (
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ragchat/ragchat/internal/config"
)

// composeFile is the subset of the compose specification the tests read.
type composeFile struct {
	Services map[string]struct {
		Image       string
		Environment map[string]string
		Profiles    []string
		Ports       []string
		Volumes     []string
		StopGrace   string                                `yaml:"stop_grace_period"`
		StopSignal  string                                `yaml:"stop_signal"`
		DependsOn   map[string]struct{ Condition string } `yaml:"depends_on"`
		Deploy      struct{ Replicas int }
		Healthcheck struct {
			Test     []string
			Interval string
		}
	}
	Volumes map[string]any
}

// interpolate replaces compose's ${NAME:-default} with the default and
// ${NAME:?message} with a value that satisfies the server's checks, as
// `compose config` would with those variables set.
func interpolate(s string) string {
	re := regexp.MustCompile(`\$\{([A-Z0-9_]+)(:-([^}]*)|:\?[^}]*)?\}`)
	return re.ReplaceAllStringFunc(s, func(m string) string {
		g := re.FindStringSubmatch(m)
		if strings.HasPrefix(g[2], ":?") {
			return "test-" + strings.ToLower(g[1]) + "-0123456789abcdef0123456789abcdef"
		}
		return g[3]
	})
}

func loadCompose(t *testing.T) composeFile {
	t.Helper()
	b, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal([]byte(interpolate(string(b))), &c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	return c
}

func TestComposeFile(t *testing.T) {
	c := loadCompose(t)
	for _, name := range []string{"ragchat", "postgres", "nats", "proxy"} {
		if _, ok := c.Services[name]; !ok {
			t.Fatalf("compose.yaml lacks the service %q", name)
		}
	}
	rc, pg, nats, proxy := c.Services["ragchat"], c.Services["postgres"], c.Services["nats"], c.Services["proxy"]

	t.Run("ragchat runs two replicas that the server accepts", func(t *testing.T) {
		if rc.Deploy.Replicas != 2 {
			t.Errorf("ragchat replicas = %d, want 2", rc.Deploy.Replicas)
		}
		if got := strings.Join(rc.Healthcheck.Test, " "); got != "CMD /ragchat healthcheck" {
			t.Errorf("ragchat healthcheck %q, want the binary's own (the image has no shell)", got)
		}
		if rc.DependsOn["postgres"].Condition != "service_healthy" {
			t.Errorf("ragchat does not wait for a healthy postgres: %+v", rc.DependsOn)
		}
		cfg, err := config.LoadFrom(mapLookup(rc.Environment))
		if err != nil {
			t.Fatalf("the server refuses compose's environment: %v", err)
		}
		if cfg.IsDevelopment() || cfg.Database.URL == "" || !cfg.Broker.CrossReplica() {
			t.Errorf("compose runs env %q, database %q, broker %q: want production on the shared PostgreSQL with a cross-replica broker",
				cfg.Env, cfg.Database.URL, cfg.Broker.Kind)
		}
		if !strings.HasPrefix(cfg.Database.URL, "postgres://") || !strings.Contains(cfg.Database.URL, "@postgres:5432/") {
			t.Errorf("DATABASE_URL %q does not name the postgres service", cfg.Database.URL)
		}
		grace, err := time.ParseDuration(rc.StopGrace)
		if err != nil || grace <= cfg.HTTP.ShutdownTimeout {
			t.Errorf("stop_grace_period %q must exceed RAGCHAT_SHUTDOWN_TIMEOUT %s", rc.StopGrace, cfg.HTTP.ShutdownTimeout)
		}
		if rc.StopSignal != "SIGTERM" {
			t.Errorf("stop_signal %q, want SIGTERM (the server drains on it)", rc.StopSignal)
		}
		documented(t, "compose.yaml", rc.Environment)
	})

	t.Run("postgres is PostgreSQL 15 with pgvector", func(t *testing.T) {
		if pg.Image != "pgvector/pgvector:pg15" {
			t.Errorf("postgres image %q", pg.Image)
		}
		if len(pg.Healthcheck.Test) == 0 || !strings.Contains(strings.Join(pg.Healthcheck.Test, " "), "pg_isready") {
			t.Errorf("postgres healthcheck %q", pg.Healthcheck.Test)
		}
		if len(pg.Profiles) != 0 {
			t.Errorf("postgres is behind profiles %v", pg.Profiles)
		}
	})

	t.Run("nats is behind its profile", func(t *testing.T) {
		if len(nats.Profiles) != 1 || nats.Profiles[0] != "nats" {
			t.Errorf("nats profiles %v, want [nats]", nats.Profiles)
		}
		if !strings.HasPrefix(nats.Image, "nats:") {
			t.Errorf("nats image %q", nats.Image)
		}
		if got := rc.Environment["RAGCHAT_NATS_URL"]; got != "nats://nats:4222" {
			t.Errorf("RAGCHAT_NATS_URL %q does not name the nats service", got)
		}
	})

	t.Run("the proxy publishes the port and mounts its config", func(t *testing.T) {
		if len(proxy.Ports) != 1 || !strings.HasSuffix(proxy.Ports[0], ":8080") {
			t.Errorf("proxy ports %v", proxy.Ports)
		}
		if len(proxy.Volumes) != 1 || !strings.HasPrefix(proxy.Volumes[0], "./nginx.conf:/etc/nginx/nginx.conf") {
			t.Errorf("proxy volumes %v, want ./nginx.conf mounted", proxy.Volumes)
		}
		if proxy.DependsOn["ragchat"].Condition != "service_healthy" {
			t.Errorf("proxy depends on %+v", proxy.DependsOn)
		}
	})

	// compose itself, when this machine has one that can check a file
	// (podman compose needs a provider; docker compose needs Docker;
	// Debian 12's podman-compose 1.0.3 has no config command).
	t.Run("compose config", func(t *testing.T) {
		var found []string
		for _, argv := range [][]string{{"docker", "compose"}, {"podman", "compose"}, {"podman-compose"}} {
			name := strings.Join(argv, " ")
			if _, err := exec.LookPath(argv[0]); err != nil {
				continue
			}
			switch {
			case exec.Command(argv[0], append(argv[1:], "version")...).Run() != nil:
				found = append(found, name+" (no compose command or provider)")
				continue
			case exec.Command(argv[0], append(argv[1:], "config", "--help")...).Run() != nil:
				found = append(found, name+" (no config command)")
				continue
			}
			cmd := exec.Command(argv[0], append(argv[1:], "-f", "compose.yaml", "config", "--quiet")...)
			cmd.Env = append(os.Environ(), "RAGCHAT_BROKER_SECRET=x", "RAGCHAT_JWT_HS256_SECRET=x")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s config: %v\n%s", name, err, out)
			}
			return
		}
		what := "none"
		if len(found) > 0 {
			what = strings.Join(found, ", ")
		}
		t.Skipf("no compose implementation here can check a file (found: %s): compose.yaml was checked by parsing alone", what)
	})
}

// TestNginxAllowsTheServersBodies: the proxy accepts a larger body than any
// the server reads with compose's environment (a JSON request up to
// RAGCHAT_MAX_BODY_BYTES, an upload up to RAGCHAT_MAX_UPLOAD_BYTES), so a
// body too large gets the server's typed error rather than nginx's HTML
// 413, and a 10 MiB attachment (the default per-file limit) gets through.
func TestNginxAllowsTheServersBodies(t *testing.T) {
	b, err := os.ReadFile("nginx.conf")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*client_max_body_size\s+(\d+)([kKmMgG]?);`).FindAllStringSubmatch(stripComments(string(b)), -1)
	if len(m) != 1 {
		t.Fatalf("nginx.conf sets client_max_body_size %d times, want once", len(m))
	}
	n, _ := strconv.ParseInt(m[0][1], 10, 64)
	proxy := n << map[string]int{"": 0, "k": 10, "m": 20, "g": 30}[strings.ToLower(m[0][2])]
	if proxy == 0 {
		return // 0: nginx checks no size
	}
	cfg, err := config.LoadFrom(mapLookup(loadCompose(t).Services["ragchat"].Environment))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []struct {
		name  string
		bytes int
	}{
		{"RAGCHAT_MAX_BODY_BYTES", cfg.Limits.MaxBodyBytes},
		{"RAGCHAT_MAX_UPLOAD_BYTES", cfg.Attachments.MaxUploadBytes},
		{"a 10 MiB attachment", 10 << 20},
	} {
		if int64(l.bytes) >= proxy {
			t.Errorf("nginx.conf's client_max_body_size (%d bytes) does not exceed %s (%d bytes): nginx would answer with its own 413",
				proxy, l.name, l.bytes)
		}
	}
}

// TestNginxUpgradesWebSockets checks the proxy's configuration for what the
// transports need: HTTP/1.1 to the upstream, the Upgrade and Connection
// headers passed on, no buffering of server-sent events, long read
// timeouts, and the replicas as the upstream.
func TestNginxUpgradesWebSockets(t *testing.T) {
	b, err := os.ReadFile("nginx.conf")
	if err != nil {
		t.Fatal(err)
	}
	conf := stripComments(string(b))
	for _, want := range []string{
		"proxy_http_version 1.1;",
		"proxy_set_header Upgrade $http_upgrade;",
		"proxy_set_header Connection $connection_upgrade;",
		"map $http_upgrade $connection_upgrade",
		"proxy_buffering off;",
		"proxy_pass http://ragchat;",
		"server ragchat:8080",
		"listen 8080;",
	} {
		if !strings.Contains(conf, want) {
			t.Errorf("nginx.conf lacks %q", want)
		}
	}
	if m := regexp.MustCompile(`proxy_read_timeout (\d+)s;`).FindStringSubmatch(conf); m == nil || len(m[1]) < 3 {
		t.Errorf("nginx.conf's proxy_read_timeout %v is not long enough for streams (>= 100s)", m)
	}
	if strings.Count(conf, "{") != strings.Count(conf, "}") {
		t.Error("nginx.conf's braces are unbalanced")
	}
}

func stripComments(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

func mapLookup(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// documented fails for a variable that internal/config does not read or
// that docs/DEPLOYMENT.md and docs/API.md do not mention, so that the
// deployment files cannot set a misspelt or unknown setting.
func documented(t *testing.T, file string, env map[string]string) {
	t.Helper()
	var src strings.Builder
	for _, path := range []string{"../internal/config/config.go", "../internal/config/oidc.go", "../internal/config/engine.go",
		"../docs/DEPLOYMENT.md", "../docs/API.md"} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	all := src.String()
	for name := range env {
		if !strings.Contains(all, `"`+name+`"`) && !strings.Contains(all, "`"+name+"`") {
			t.Errorf("%s sets %s, which neither internal/config nor the docs name", file, name)
		}
	}
}

// splitHostPort is net.SplitHostPort without the error for tests.
func splitHostPort(addr string) (string, string, error) { return net.SplitHostPort(addr) }
