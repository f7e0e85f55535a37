package bench

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServerBinaryFlag takes --server-bin as given when it names an
// executable file and refuses anything else with a usage error.
func TestServerBinaryFlag(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "ragchat")
	plain := filepath.Join(dir, "notes.txt")
	for path, mode := range map[string]os.FileMode{exe: 0o755, plain: 0o644} {
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, flag, want string
	}{
		{"executable", exe, exe},
		{"missing", filepath.Join(dir, "nope"), ""},
		{"not executable", plain, ""},
		{"a directory", dir, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := serverBinary(context.Background(), tc.flag, t.TempDir(), io.Discard)
			if tc.want != "" {
				if err != nil || got != tc.want {
					t.Fatalf("serverBinary(%q) = %q, %v; want %q", tc.flag, got, err, tc.want)
				}
				return
			}
			if !errors.As(err, new(UsageError)) {
				t.Fatalf("serverBinary(%q) = %q, %v; want a usage error", tc.flag, got, err)
			}
		})
	}
}

// TestServerBinaryBuilt builds the server with go build when no binary is
// given or found beside this executable and the working directory is in
// the ragchat module (as in `go run ./cmd/ragchat-bench`), and says to pass
// --server-bin outside it.
func TestServerBinaryBuilt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a hang guard
	defer cancel()
	dir := t.TempDir()
	got, err := serverBinary(ctx, "", dir, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got != filepath.Join(dir, "ragchat") {
		t.Fatalf("built %q, want it in %s", got, dir)
	}
	out, err := exec.CommandContext(ctx, got, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "ragchat ") {
		t.Fatalf("%s version: %v\n%s", got, err, out)
	}

	t.Chdir(t.TempDir()) // outside the module
	if _, err := serverBinary(ctx, "", t.TempDir(), io.Discard); err == nil || !strings.Contains(err.Error(), "--server-bin") {
		t.Fatalf("outside the module: %v, want an error naming --server-bin", err)
	}
}
