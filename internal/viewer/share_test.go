package viewer_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/viewer"
)

// TestShareContextIsAloneInItsContext: a share scope drops the viewer and
// the system job of its parent, and a viewer or a system job drops the
// scope, so no context is two principals at once.
func TestShareContextIsAloneInItsContext(t *testing.T) {
	t.Parallel()
	admin := &viewer.Viewer{TenantID: "t", UserID: "a", Roles: []viewer.Role{viewer.RoleAdmin}}
	scope := viewer.ShareLookup{TokenHash: "h"}
	for _, c := range []struct {
		name      string
		ctx       context.Context
		share     bool
		hasViewer bool
		job       bool
	}{
		{"scope over a viewer", viewer.NewShareContext(viewer.NewContext(context.Background(), admin), scope), true, false, false},
		{"scope over a job", viewer.NewShareContext(viewer.SystemJobContext(context.Background(), viewer.JobPurge), scope), true, false, false},
		{"viewer over a scope", viewer.NewContext(viewer.NewShareContext(context.Background(), scope), admin), false, true, false},
		{"job over a scope", viewer.SystemJobContext(viewer.NewShareContext(context.Background(), scope), viewer.JobPurge), false, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, job := viewer.SystemJob(c.ctx)
			if got := viewer.ShareScopeFrom(c.ctx) != nil; got != c.share {
				t.Errorf("share scope: %v", got)
			}
			if got := viewer.FromContext(c.ctx) != nil; got != c.hasViewer {
				t.Errorf("viewer: %v", got)
			}
			if job != c.job {
				t.Errorf("system job: %v", job)
			}
		})
	}
}

// TestOnlySharingMakesShareScopes: internal/sharing is the one package
// (tests aside) that builds a share scope context, from a link it read.
func TestOnlySharingMakesShareScopes(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), "viewer.NewShareContext(") {
			found = append(found, filepath.ToSlash(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 {
		t.Fatal("no caller of NewShareContext found: the scan is broken")
	}
	for _, f := range found {
		if !strings.HasPrefix(f, "../../internal/sharing/") {
			t.Errorf("%s builds a share scope; only internal/sharing may", f)
		}
	}
}
