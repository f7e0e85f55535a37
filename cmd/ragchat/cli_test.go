package main_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/auth"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestTokenCommand mints a token that the server's verifier accepts, with
// the tenant, user, roles and groups of the flags.
func TestTokenCommand(t *testing.T) {
	env := []string{"RAGCHAT_JWT_HS256_SECRET=" + secret, "RAGCHAT_DATA_DIR=" + t.TempDir()}
	out := runCLI(t, env, "token", "--tenant", "acme", "--user", "alice", "--role", "member", "--role", "agent", "--group", "ops,sre")
	v, err := mustVerifier(t, []byte(secret)).Verify(context.Background(), strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("token %q: %v", out, err)
	}
	if v.TenantID != "acme" || v.UserID != "alice" || !v.Has(viewer.RoleAgent) || !slices.Equal(v.Groups, []string{"ops", "sre"}) {
		t.Fatalf("viewer %+v", v)
	}
}

// TestTokenCommandDevSecret generates the development secret once and
// keeps using it.
func TestTokenCommandDevSecret(t *testing.T) {
	dir := t.TempDir()
	env := []string{"RAGCHAT_DATA_DIR=" + dir}
	first := strings.TrimSpace(runCLI(t, env, "token", "--tenant", "demo", "--user", "u"))
	second := strings.TrimSpace(runCLI(t, env, "token", "--tenant", "demo", "--user", "u"))
	secretFile, err := readFile(filepath.Join(dir, "jwt-dev-secret"))
	if err != nil {
		t.Fatal(err)
	}
	ver := mustVerifier(t, []byte(strings.TrimSpace(secretFile)))
	for _, tok := range []string{first, second} {
		if _, err := ver.Verify(context.Background(), tok); err != nil {
			t.Fatalf("token not signed with the persisted dev secret: %v", err)
		}
	}
}

// TestCLIUsage exits 2 on usage errors and 0 for version.
func TestCLIUsage(t *testing.T) {
	cases := []struct {
		args []string
		code int
	}{
		{nil, 2},
		{[]string{"nope"}, 2},
		{[]string{"token"}, 2},
		{[]string{"migrate", "sideways"}, 2},
		{[]string{"version"}, 0},
		{[]string{"help"}, 0},
	}
	for _, tc := range cases {
		cmd := exec.Command(binary, tc.args...)
		cmd.Env = []string{"RAGCHAT_DATA_DIR=" + t.TempDir()}
		out, err := cmd.CombinedOutput()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		if code != tc.code {
			t.Errorf("ragchat %v: exit %d, want %d\n%s", tc.args, code, tc.code, out)
		}
	}
}

// TestMigrateOnSQLite creates the SQLite schema with `migrate up`.
func TestMigrateOnSQLite(t *testing.T) {
	dir := t.TempDir()
	env := []string{"RAGCHAT_DATA_DIR=" + dir}
	if out := runCLI(t, env, "migrate", "up"); !strings.Contains(out, "sqlite") {
		t.Fatalf("migrate up: %q", out)
	}
	if _, err := readFile(filepath.Join(dir, "ragchat.db")); err != nil {
		t.Fatal(err)
	}
	if out := runCLI(t, env, "migrate", "version"); !strings.Contains(out, "Ent auto-migration") {
		t.Fatalf("migrate version: %q", out)
	}
}

func mustVerifier(t *testing.T, key []byte) *auth.Verifier {
	t.Helper()
	v, err := auth.NewVerifier(auth.Config{HS256Secret: key})
	if err != nil {
		t.Fatal(err)
	}
	return v
}
