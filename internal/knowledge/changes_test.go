package knowledge_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// recordedChanges is an AccessNotifier that records the tenants it is told
// about.
type recordedChanges struct {
	mu      sync.Mutex
	tenants []string
}

func (r *recordedChanges) Changed(_ context.Context, tenant string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tenants = append(r.tenants, tenant)
}

func (r *recordedChanges) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.tenants
	r.tenants = nil
	return out
}

// TestAccessChangesAreAnnounced: every committed change of who may read
// which chunks is announced once, with the tenant (so that open streams
// re-check their citations): an access list set, a re-ingest that replaces
// the chunks or changes the access list, a deletion. What changes no
// access announces nothing: a new document, a re-ingest of the same
// content and list (with or without a new title), setting the list a
// document already has, and a refused change.
func TestAccessChangesAreAnnounced(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		changes := &recordedChanges{}
		e := newEnv(t, db, knowledge.Options{Changes: changes})
		kb := e.kb(t, "handbook")
		in := knowledge.DocumentInput{Title: "Travel", SourceURI: "wiki:travel", Content: "# Travel\n\nBook trains, not planes."}
		restricted := knowledge.ACL{Visibility: knowledge.VisibilityRestricted, Groups: []string{"ops"}}
		doc := e.ingest(t, kb.ID, in)
		steps := []struct {
			name     string
			do       func(t *testing.T) error
			announce bool
		}{
			{"a new document", func(t *testing.T) error {
				e.ingest(t, kb.ID, knowledge.DocumentInput{Title: "Other", Content: "# Other\n\nText."})
				return nil
			}, false},
			{"the same content again", func(t *testing.T) error { e.ingest(t, kb.ID, in); return nil }, false},
			{"a new title only", func(t *testing.T) error {
				in.Title = "Travel policy"
				e.ingest(t, kb.ID, in)
				return nil
			}, false},
			{"setACL", func(t *testing.T) error { _, err := e.svc.SetACL(as(carol), doc.ID, restricted); return err }, true},
			{"setACL to the same list", func(t *testing.T) error { _, err := e.svc.SetACL(as(carol), doc.ID, restricted); return err }, false},
			{"a refused setACL", func(t *testing.T) error {
				_, err := e.svc.SetACL(as(alice), doc.ID, knowledge.ACL{})
				require.Error(t, err)
				return nil
			}, false},
			{"a re-ingest with another list", func(t *testing.T) error { e.ingest(t, kb.ID, in); return nil }, true}, // back to TENANT
			{"a re-ingest with new content", func(t *testing.T) error {
				in.Content = "# Travel\n\nBook trains; planes need approval."
				e.ingest(t, kb.ID, in)
				return nil
			}, true},
			{"deleteDocument", func(t *testing.T) error { return e.svc.DeleteDocument(as(carol), doc.ID, "outdated") }, true},
		}
		changes.take()
		for _, st := range steps {
			require.NoError(t, st.do(t), st.name)
			got := changes.take()
			if st.announce {
				assert.Equal(t, []string{"acme"}, got, "%s: announced once, for the tenant", st.name)
			} else {
				assert.Empty(t, got, "%s: nothing to announce", st.name)
			}
		}
	})
}
