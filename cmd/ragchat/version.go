package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// buildVersion is set at link time: -ldflags "-X main.buildVersion=v1.2.3".
var buildVersion = ""

// version returns the build version: the linked one, else the module
// version and VCS revision from the build info.
func version() string {
	if buildVersion != "" {
		return buildVersion
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		return fmt.Sprintf("%s (%s%s)", v, rev, modified)
	}
	return v
}

// runVersion prints the version and the Go toolchain.
func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ragchat %s %s %s/%s\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
