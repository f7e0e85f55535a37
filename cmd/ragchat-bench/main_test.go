package main_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/testbin"
)

// The smoke tests run the real ragchat-bench binary against real `ragchat
// serve` children, with tiny sizes, so that the harness cannot rot.

// binary is the ragchat-bench binary and server the ragchat binary beside
// it, both built once by TestMain into one directory (as `make bench`
// builds them into bin/), or both prebuilt in one (testbin).
var binary, server string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ragchat-bench-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, b := range []struct {
		out       *string
		name, pkg string
	}{{&binary, "ragchat-bench", "."}, {&server, "ragchat", "../ragchat"}} {
		if *b.out, err = testbin.Path(dir, b.name, b.pkg); err != nil {
			fmt.Fprintln(os.Stderr, "build", b.pkg+":", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runBench runs ragchat-bench with args in harnessEnv, under a hang guard
// of five minutes, and returns its report (stdout); it fails the test with
// both outputs when the harness fails.
func runBench(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = harnessEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("ragchat-bench: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	return out.String()
}

// harnessEnv is the environment ragchat-bench runs in. The harness passes
// its children an environment of its own making (PATH and, when set,
// RAGCHAT_DEBUG_ADDR are all it takes from this one).
func harnessEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
}
