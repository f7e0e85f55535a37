package main_test

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/testdb"
)

// TestImage builds the container image with `scripts/image.sh` (make
// image), checks its configuration, its layer and its size against
// docs/DEPLOYMENT.md, and runs it with podman against the test
// PostgreSQL: /readyz, no development sign-in, then one ask streamed over
// SSE; and once with no environment, which must refuse to start.
// scripts/test.sh installs buildah, skopeo, podman and runc, so make test
// always runs it; where podman cannot run a container (no user namespaces,
// nested containers), the test says so loudly and checks the image alone.
func TestImage(t *testing.T) {
	for _, tool := range []string{"buildah", "skopeo"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("IMAGE TEST SKIPPED: %s is not installed (scripts/test.sh installs it)", tool)
		}
	}
	// podman names an image after its OCI path, and names are lower case.
	dir, err := os.MkdirTemp("", "ragchat-image-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	layout := filepath.Join(dir, "oci")
	ref := buildImage(t, layout)

	t.Run("config", func(t *testing.T) {
		out, err := exec.Command("skopeo", "inspect", "--config", ref).Output()
		if err != nil {
			t.Fatalf("skopeo inspect --config %s: %v", ref, stderrOf(err))
		}
		var img struct {
			Config struct {
				User         string
				ExposedPorts map[string]struct{}
				Env          []string
				Entrypoint   []string
				Cmd          []string
				Volumes      map[string]struct{}
				Labels       map[string]string
			} `json:"config"`
		}
		if err := json.Unmarshal(out, &img); err != nil {
			t.Fatal(err)
		}
		c := img.Config
		if got := strings.Join(c.Entrypoint, " "); got != "/ragchat serve" || len(c.Cmd) != 0 {
			t.Errorf("entrypoint %q cmd %q, want [/ragchat serve] and no cmd", c.Entrypoint, c.Cmd)
		}
		if c.User != "65532:65532" {
			t.Errorf("user %q, want the non-root 65532:65532", c.User)
		}
		if _, ok := c.ExposedPorts["8080/tcp"]; !ok || len(c.ExposedPorts) != 1 {
			t.Errorf("exposed ports %v, want 8080/tcp", c.ExposedPorts)
		}
		if _, ok := c.Volumes["/data"]; !ok {
			t.Errorf("volumes %v, want /data", c.Volumes)
		}
		// Production: development sign-in hands out tokens to anyone.
		for _, want := range []string{"RAGCHAT_ENV=production", "RAGCHAT_DATA_DIR=/data", "RAGCHAT_ADDR=0.0.0.0:8080"} {
			if !contains(c.Env, want) {
				t.Errorf("env %q lacks %s", c.Env, want)
			}
		}
		for _, label := range []string{"org.opencontainers.image.version", "org.opencontainers.image.revision", "org.opencontainers.image.created"} {
			if c.Labels[label] == "" {
				t.Errorf("label %s missing: %v", label, c.Labels)
			}
		}
	})

	t.Run("layer", func(t *testing.T) {
		files, size := layerFiles(t, layout)
		var unpacked int64
		for _, h := range files {
			unpacked += h.Size
		}
		t.Logf("image size: %.1f MiB compressed (manifest, config and layers), %.1f MiB unpacked", mib(size), mib(unpacked))
		checkDocumentedSize(t, size, unpacked)
		want := map[string]struct {
			uid  int
			mode os.FileMode
		}{
			"ragchat":                           {0, 0o755},
			"etc/ssl/certs/ca-certificates.crt": {0, 0o644},
			"etc/passwd":                        {0, 0o644},
			"etc/group":                         {0, 0o644},
			"data":                              {65532, 0o700},
			"tmp":                               {0, 0o777 | os.ModeSticky},
		}
		for name, w := range want {
			h, ok := files[name]
			if !ok {
				t.Errorf("the layer lacks /%s", name)
				continue
			}
			if h.Uid != w.uid || h.FileInfo().Mode().Perm()|h.FileInfo().Mode()&os.ModeSticky != w.mode {
				t.Errorf("/%s: uid %d mode %v, want uid %d mode %v", name, h.Uid, h.FileInfo().Mode(), w.uid, w.mode)
			}
		}
		if h := files["ragchat"]; h != nil && h.Size < 1<<20 {
			t.Errorf("/ragchat is %d bytes: not the server binary", h.Size)
		}
	})

	t.Run("run", func(t *testing.T) {
		runImage(t, dir, ref)
	})

	t.Run("run with no environment", func(t *testing.T) {
		runBare(t, dir, ref)
	})
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// sizeTolerance is how far the image may drift from the size
// docs/DEPLOYMENT.md gives before the figure must be updated.
const sizeTolerance = 0.10

// checkDocumentedSize compares the image's sizes, compressed (what a
// registry stores and a pull downloads) and unpacked (the layer's files),
// with the figures of docs/DEPLOYMENT.md's image table, within
// sizeTolerance.
func checkDocumentedSize(t *testing.T, compressed, unpacked int64) {
	t.Helper()
	doc := filepath.Join(repoRoot(), "docs", "DEPLOYMENT.md")
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\| size \| \*\*([0-9.]+) MiB\*\* compressed \(one layer; ([0-9.]+) MiB unpacked`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("docs/DEPLOYMENT.md's image table has no row \"| size | **N MiB** compressed (one layer; N MiB unpacked\"")
	}
	for _, c := range []struct {
		what string
		doc  []byte
		got  int64
	}{{"compressed", m[1], compressed}, {"unpacked", m[2], unpacked}} {
		want, err := strconv.ParseFloat(string(c.doc), 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := mib(c.got); math.Abs(got-want) > want*sizeTolerance {
			t.Errorf("docs/DEPLOYMENT.md gives the image as %.1f MiB %s, the image is %.1f MiB: update the figure", want, c.what, got)
		}
	}
}

// repoRoot is the repository's root directory.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// buildImage runs scripts/image.sh into layout and returns the image's
// reference (oci:<layout>:ragchat:<version>).
func buildImage(t *testing.T, layout string) string {
	t.Helper()
	root := repoRoot()
	cmd := exec.Command(filepath.Join(root, "scripts", "image.sh"), layout)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "IMAGE_VERSION=test")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/image.sh: %v\n%s", err, stderr.String())
	}
	ref := strings.TrimSpace(string(out))
	if want := "oci:" + layout + ":ragchat:test"; ref != want {
		t.Fatalf("scripts/image.sh printed %q, want %q", ref, want)
	}
	return ref
}

// layerFiles reads the OCI layout's one image and returns the headers of
// its layers' files by path (without the leading slash or "./") and the
// image's size: the sum of its blobs as stored (compressed).
func layerFiles(t *testing.T, layout string) (map[string]*tar.Header, int64) {
	t.Helper()
	blob := func(digest string) string {
		return filepath.Join(layout, "blobs", strings.Replace(digest, ":", string(filepath.Separator), 1))
	}
	var index struct {
		Manifests []struct {
			Digest string
			Size   int64
		}
	}
	readJSON(t, filepath.Join(layout, "index.json"), &index)
	if len(index.Manifests) != 1 {
		t.Fatalf("index.json has %d manifests, want 1", len(index.Manifests))
	}
	var manifest struct {
		Config struct{ Size int64 }
		Layers []struct {
			MediaType string
			Digest    string
			Size      int64
		}
	}
	readJSON(t, blob(index.Manifests[0].Digest), &manifest)
	size := index.Manifests[0].Size + manifest.Config.Size
	files := map[string]*tar.Header{}
	for _, l := range manifest.Layers {
		size += l.Size
		f, err := os.Open(blob(l.Digest))
		if err != nil {
			t.Fatal(err)
		}
		var r io.Reader = f
		if strings.HasSuffix(l.MediaType, "+gzip") {
			gz, err := gzip.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			r = gz
		}
		tr := tar.NewReader(r)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("layer %s: %v", l.Digest, err)
			}
			files[strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(h.Name, "./"), "/"), "/")] = h
		}
		f.Close()
	}
	return files, size
}

// runImage runs the image with podman (vfs storage in dir, the host's
// network) against a fresh test database, waits for /readyz and asks one
// question. When podman cannot start a container here, it logs so loudly
// and returns.
func runImage(t *testing.T, dir, ref string) {
	if _, err := exec.LookPath("podman"); err != nil {
		t.Skip("IMAGE NOT RUN: podman is not installed; only the image's config and layer were checked")
	}
	dbURL := testdb.PostgresURL(t)
	addr := freeAddr(t)
	podman := podmanGlobal(dir)
	name := fmt.Sprintf("ragchat-imagetest-%d", os.Getpid())
	args := append(append([]string{}, podman...), "run", "-d", "--name", name, "--network", "host")
	args = append(append(args, podmanLimits()...),
		"-e", "DATABASE_URL="+dbURL,
		"-e", "RAGCHAT_ADDR="+addr,
		"-e", "RAGCHAT_JWT_HS256_SECRET="+secret,
		"-e", "RAGCHAT_BROKER_SECRET="+brokerSecret,
		"-e", "RAGCHAT_OFFLINE_TOKEN_DELAY=1ms",
		ref)
	out, err := exec.Command("podman", args...).CombinedOutput()
	t.Cleanup(func() {
		rm := append(append([]string{}, podman...), "rm", "-f", "-t", "10", name)
		if out, err := exec.Command("podman", rm...).CombinedOutput(); err != nil {
			t.Logf("podman rm: %v\n%s", err, out)
		}
	})
	if err != nil {
		msg := fmt.Sprintf("IMAGE NOT RUN: podman cannot run containers on this machine (%v): %s", err, lastLines(string(out), 5))
		fmt.Fprintln(os.Stderr, "TestImage: "+msg)
		t.Log(msg)
		t.Skip("only the image's config and layer were checked")
	}
	logs := func() string {
		l := append(append([]string{}, podman...), "logs", "--tail", "40", name)
		b, _ := exec.Command("podman", l...).CombinedOutput()
		return string(b)
	}

	base := "http://" + addr
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the container was not ready within 2 minutes (last: %v)\n%s", err, logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The binary's own health check, as compose runs it: inside the image.
	hc := append(append([]string{}, podman...), "exec", name, "/ragchat", "healthcheck")
	if out, err := exec.Command("podman", hc...).CombinedOutput(); err != nil {
		t.Errorf("podman exec /ragchat healthcheck: %v\n%s", err, out)
	}

	// Production: no development sign-in, whoever asks.
	for _, probe := range []struct{ method, path, body string }{
		{http.MethodPost, "/dev/token", `{"user":"demo-admin"}`},
		{http.MethodGet, "/dev/users", ""},
	} {
		req, err := http.NewRequest(probe.method, base+probe.path, strings.NewReader(probe.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || strings.Contains(string(body), "token") {
			t.Errorf("%s %s: %d %s, want 404: the image serves development sign-in", probe.method, probe.path, resp.StatusCode, body)
		}
	}

	// The server loads the demo tenant's knowledge base (RAGCHAT_LOAD_DEMO).
	c := gqlclient.New(base+"/graphql", token(t, "demo", "image-user", []string{"member"}))
	conv := createConversation(t, c)
	a := ask(t, c, conv, "How large can an uploaded file be?")
	sub, err := c.SubscribeSSE(ctxT(t), attemptEventsQuery, map[string]any{"a": a})
	if err != nil {
		t.Fatalf("subscribe: %v\n%s", err, logs())
	}
	answer := checkStream(t, collectEvents(t, sub))
	if !strings.Contains(answer, "20") {
		t.Errorf("the answer %q does not give the upload limit", answer)
	}
}

// runBare runs the image as `podman run IMAGE` would, with no environment
// and no arguments (without a network, so that nothing it might serve is
// reachable): it must refuse to start, with one line that names the JWT
// variables production needs. Before the image set RAGCHAT_ENV=production
// it started in development on 0.0.0.0:8080, where POST /dev/token handed
// an admin's token to anyone.
func runBare(t *testing.T, dir, ref string) {
	if _, err := exec.LookPath("podman"); err != nil {
		t.Skip("IMAGE NOT RUN: podman is not installed")
	}
	name := fmt.Sprintf("ragchat-imagetest-bare-%d", os.Getpid())
	podman := podmanGlobal(dir)
	args := append(append([]string{}, podman...), "run", "--name", name, "--network", "none")
	args = append(append(args, podmanLimits()...), ref)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "podman", args...).CombinedOutput()
	t.Cleanup(func() {
		rm := append(append([]string{}, podman...), "rm", "-f", "-t", "5", name)
		_ = exec.Command("podman", rm...).Run()
	})
	if ctx.Err() != nil {
		t.Fatalf("the image started with no environment is still running after 2 minutes (serving development sign-in?):\n%s", lastLines(string(out), 20))
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("podman run: %v\n%s", err, out)
	}
	if code := exit.ExitCode(); code == 125 || code == 126 || code == 127 {
		msg := fmt.Sprintf("IMAGE NOT RUN: podman cannot run containers on this machine (exit %d): %s", code, lastLines(string(out), 5))
		fmt.Fprintln(os.Stderr, "TestImage: "+msg)
		t.Skip(msg)
	}
	var refusal string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "ragchat serve: ") {
			refusal = line
		}
	}
	for _, want := range []string{"RAGCHAT_ENV=production", "RAGCHAT_JWT_PUBLIC_KEY", "RAGCHAT_JWT_JWKS_URL", "RAGCHAT_JWT_HS256_SECRET"} {
		if !strings.Contains(refusal, want) {
			t.Errorf("the refusal %q does not name %s; the container's output:\n%s", refusal, want, out)
		}
	}
	t.Logf("exit %d: %s", exit.ExitCode(), refusal)
}

// podmanGlobal returns podman's global flags: vfs storage in dir and,
// since crun refuses hybrid cgroup hierarchies (v1 controllers with v2
// mounted), runc when it is installed.
func podmanGlobal(dir string) []string {
	podman := []string{"--root", filepath.Join(dir, "podman-root"), "--runroot", filepath.Join(dir, "podman-run"), "--storage-driver", "vfs"}
	if _, err := exec.LookPath("runc"); err == nil {
		podman = append(podman, "--runtime", "runc")
	}
	return podman
}

// podmanLimits returns the resource limits of podman run. Podman raises
// RLIMIT_NOFILE above the caller's hard limit by default, which fails
// without CAP_SYS_RESOURCE: keep the caller's.
func podmanLimits() []string {
	var args []string
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		args = append(args, "--ulimit", fmt.Sprintf("nofile=%d:%d", lim.Cur, lim.Max))
	}
	return append(args, "--ulimit", "nproc=32768:32768")
}

// freeAddr returns a 127.0.0.1 address with a port free at the time.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return err.Error() + ": " + string(ee.Stderr)
	}
	return err.Error()
}
