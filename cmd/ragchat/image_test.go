package main_test

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/testdb"
)

// TestImage builds the container image with `scripts/image.sh` (make
// image), checks its configuration and its layer, and runs it with podman
// against the test PostgreSQL: /readyz, then one ask streamed over SSE.
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
		for _, want := range []string{"RAGCHAT_DATA_DIR=/data", "RAGCHAT_ADDR=0.0.0.0:8080"} {
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
		t.Logf("image size: %.1f MiB compressed (manifest, config and layers)", float64(size)/(1<<20))
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
}

// buildImage runs scripts/image.sh into layout and returns the image's
// reference (oci:<layout>:ragchat:<version>).
func buildImage(t *testing.T, layout string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
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
	podman := []string{"--root", filepath.Join(dir, "podman-root"), "--runroot", filepath.Join(dir, "podman-run"), "--storage-driver", "vfs"}
	// crun refuses hybrid cgroup hierarchies (v1 controllers with v2
	// mounted); runc takes them.
	if _, err := exec.LookPath("runc"); err == nil {
		podman = append(podman, "--runtime", "runc")
	}
	name := fmt.Sprintf("ragchat-imagetest-%d", os.Getpid())
	args := append(append([]string{}, podman...), "run", "-d", "--name", name, "--network", "host")
	// Podman raises RLIMIT_NOFILE above the caller's hard limit by
	// default, which fails without CAP_SYS_RESOURCE: keep the caller's.
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		args = append(args, "--ulimit", fmt.Sprintf("nofile=%d:%d", lim.Cur, lim.Max))
	}
	args = append(args,
		"--ulimit", "nproc=32768:32768",
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

	// The development server loads the demo tenant's knowledge base.
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
