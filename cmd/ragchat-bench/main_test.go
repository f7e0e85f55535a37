package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The smoke tests run the real ragchat-bench binary against real `ragchat
// serve` children, with tiny sizes, so that the harness cannot rot.

// binary is the ragchat-bench binary and server the ragchat binary beside
// it, both built once by TestMain into one directory (as `make bench`
// builds them into bin/).
var binary, server string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ragchat-bench-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary, server = filepath.Join(dir, "ragchat-bench"), filepath.Join(dir, "ragchat")
	for out, pkg := range map[string]string{binary: ".", server: "../ragchat"} {
		build := exec.Command("go", "build", "-o", out, pkg)
		build.Stdout, build.Stderr = os.Stdout, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build", pkg+":", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// harnessEnv is the environment ragchat-bench runs in. The harness passes
// its children an environment of its own making (PATH and, when set,
// RAGCHAT_DEBUG_ADDR are all it takes from this one).
func harnessEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
}
