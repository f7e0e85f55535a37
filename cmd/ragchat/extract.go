package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/ragchat/ragchat/internal/attachment"
)

// runExtract is the child process of the server's PDF sandbox
// (attachment.Sandbox): it reads one file from stdin and writes its text
// as JSON, within the limits its flags give. The server runs it; it is
// not meant to be run by hand.
func runExtract(_ context.Context, args []string, stdout, stderr io.Writer) error {
	switch code := attachment.SandboxMain(args, os.Stdin, stdout, stderr); code {
	case 0:
		return nil
	case 2:
		return usagef("see ragchat extract -h")
	default:
		return fmt.Errorf("exit status %d", code)
	}
}

// attachmentSandbox is the command line of the PDF sandbox's child: this
// binary's extract subcommand, or nil when the binary cannot name its own
// path (the text of PDFs is then extracted in the server's process).
func attachmentSandbox() []string {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{exe, "extract"}
}
