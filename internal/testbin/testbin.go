// Package testbin gives tests the binaries of this repository's commands.
// scripts/test.sh builds them once into RAGCHAT_TEST_BIN_DIR, so that each
// test binary (and each JavaScript test process, through
// clients/node/lib/gobin.js) does not link its own copy; a test run
// without it builds them.
package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
)

// EnvDir names the directory of prebuilt binaries.
const EnvDir = "RAGCHAT_TEST_BIN_DIR"

// Path returns the path of the binary of the command in package pkg (a
// path go build understands, relative to the calling test's directory),
// named name: RAGCHAT_TEST_BIN_DIR/name when that file exists, else dir/name
// after go build wrote it there.
func Path(dir, name, pkg string) (string, error) {
	if pre := os.Getenv(EnvDir); pre != "" {
		p := filepath.Join(pre, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	out := filepath.Join(dir, name)
	build := exec.Command("go", "build", "-o", out, pkg)
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	return out, build.Run()
}
