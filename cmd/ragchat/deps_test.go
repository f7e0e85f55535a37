package main_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestServerLinksNoBenchHarness checks that the production binary links
// neither the benchmark harness (cmd/ragchat-bench, internal/bench) nor
// what only tests and the harness use: the fake model, the test GraphQL
// client and the test database helpers.
func TestServerLinksNoBenchHarness(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	forbidden := []string{
		"github.com/ragchat/ragchat/internal/bench",
		"github.com/ragchat/ragchat/internal/llm/llmfake",
		"github.com/ragchat/ragchat/internal/server/gqlclient",
		"github.com/ragchat/ragchat/internal/testdb",
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list -deps listed nothing")
	}
	for _, dep := range deps {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("ragchat links %s", dep)
			}
		}
	}
}
