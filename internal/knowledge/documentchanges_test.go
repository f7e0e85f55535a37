package knowledge_test

import (
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// recordedDocuments is a DocumentNotifier that records what it is told.
type recordedDocuments struct {
	mu    sync.Mutex
	calls []string // "tenant:doc,doc"
}

func (r *recordedDocuments) Changed(tenant string, docs []uuid.UUID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := tenant + ":"
	for i, d := range docs {
		if i > 0 {
			s += ","
		}
		s += d.String()
	}
	r.calls = append(r.calls, s)
}

func (r *recordedDocuments) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.calls
	r.calls = nil
	return out
}

// TestDocumentChangesAreAnnounced: a re-ingest that replaces a document's
// content is announced once, with the tenant and the document; nothing
// else is: a new document, the same content again, a new title or access
// list only, and a deletion (the citing sources no longer name it).
func TestDocumentChangesAreAnnounced(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		docs := &recordedDocuments{}
		e := newEnv(t, db, knowledge.Options{Documents: docs})
		kb := e.kb(t, "handbook")
		in := knowledge.DocumentInput{Title: "Travel", SourceURI: "wiki:travel", Content: "# Travel\n\nBook trains, not planes."}
		doc := e.ingest(t, kb.ID, in)
		steps := []struct {
			name     string
			do       func(t *testing.T) error
			announce bool
		}{
			{"the same content again", func(t *testing.T) error { e.ingest(t, kb.ID, in); return nil }, false},
			{"a new title only", func(t *testing.T) error {
				in.Title = "Travel policy"
				e.ingest(t, kb.ID, in)
				return nil
			}, false},
			{"a new access list only", func(t *testing.T) error {
				_, err := e.svc.SetACL(as(carol), doc.ID, knowledge.ACL{Visibility: knowledge.VisibilityRestricted, Groups: []string{"ops"}})
				return err
			}, false},
			{"a re-ingest with new content", func(t *testing.T) error {
				in.Content = "# Travel\n\nBook trains; planes need approval."
				e.ingest(t, kb.ID, in)
				return nil
			}, true},
			{"deleteDocument", func(t *testing.T) error { return e.svc.DeleteDocument(as(carol), doc.ID, "outdated") }, false},
		}
		assert.Empty(t, docs.take(), "a new document is not a change")
		for _, st := range steps {
			require.NoError(t, st.do(t), st.name)
			got := docs.take()
			if st.announce {
				assert.Equal(t, []string{"acme:" + doc.ID.String()}, got, "%s: announced once", st.name)
			} else {
				assert.Empty(t, got, "%s: nothing to announce", st.name)
			}
		}
	})
}
