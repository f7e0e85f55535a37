package attachment_test

import (
	"os"
	"testing"

	attach "github.com/ragchat/ragchat/internal/attachment"
)

// sandboxChildEnv makes the test binary the child of a Sandbox
// (attach.SandboxMain), as `ragchat extract` is the server's.
const sandboxChildEnv = "RAGCHAT_TEST_SANDBOX_CHILD=1"

func TestMain(m *testing.M) {
	if os.Getenv("RAGCHAT_TEST_SANDBOX_CHILD") == "1" {
		os.Exit(attach.SandboxMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// testSandbox runs the test binary as the sandbox child.
func testSandbox() *attach.Sandbox {
	return &attach.Sandbox{Command: []string{os.Args[0]}, Env: []string{sandboxChildEnv}, MemoryBytes: 256 << 20}
}
