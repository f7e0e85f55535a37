package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
)

// serverPackage is the server command, which serverBinary builds when no
// binary is given or found.
const serverPackage = "github.com/ragchat/ragchat/cmd/ragchat"

// serverBinary returns the absolute path of the `ragchat` binary the child
// servers run, in this order:
//
//   - flagValue (--server-bin), which must be an executable file;
//   - a `ragchat` beside this executable (`make bench` builds both into
//     bin/);
//   - otherwise one that `go build` builds into dir from the working
//     directory, which works inside the ragchat module (`go run
//     ./cmd/ragchat-bench` from a checkout).
func serverBinary(ctx context.Context, flagValue, dir string, stderr io.Writer) (string, error) {
	if flagValue != "" {
		path, err := filepath.Abs(flagValue)
		if err != nil {
			return "", err
		}
		if err := executable(path); err != nil {
			return "", usagef("--server-bin: %v", err)
		}
		return path, nil
	}
	if exe, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(exe), "ragchat")
		if executable(beside) == nil {
			return beside, nil
		}
	}
	out := filepath.Join(dir, "ragchat")
	fmt.Fprintf(stderr, "bench: no --server-bin and no ragchat beside this executable: go build %s …\n", serverPackage)
	build := exec.CommandContext(ctx, "go", "build", "-o", out, serverPackage)
	if msg, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("no server binary: pass --server-bin, or run inside the ragchat module so that it can be built (go build %s: %v)\n%s", serverPackage, err, msg)
	}
	return out, nil
}

// executable reports why path is not an executable regular file, or nil.
func executable(path string) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", path)
	case st.Mode().Perm()&0o111 == 0:
		return &fs.PathError{Op: "exec", Path: path, Err: errors.New("not executable")}
	}
	return nil
}
