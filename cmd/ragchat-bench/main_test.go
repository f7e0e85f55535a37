package main_test

import (
	"fmt"
	"os"
	"testing"

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

// harnessEnv is the environment ragchat-bench runs in. The harness passes
// its children an environment of its own making (PATH and, when set,
// RAGCHAT_DEBUG_ADDR are all it takes from this one).
func harnessEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
}
