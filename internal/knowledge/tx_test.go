package knowledge_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// TestReturnedEntitiesOutliveTheirTransaction queries edges of every
// entity the service returns from a write or search transaction: a
// returned entity still bound to its finished transaction fails such a
// query with "transaction has already been committed or rolled back"
// (which the API reported as INTERNAL for setDocumentAcl and
// ingestDocument selecting knowledgeBase { id }).
func TestReturnedEntitiesOutliveTheirTransaction(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, knowledge.Options{})
		kb := e.kb(t, "handbook")
		ctx := as(carol)
		edges := func(t *testing.T, what string, doc *ent.Document) {
			t.Helper()
			got, err := doc.QueryKnowledgeBase().Only(ctx)
			require.NoError(t, err, "%s: Document.knowledgeBase", what)
			require.Equal(t, kb.ID, got.ID)
			_, err = doc.QueryGrants().All(ctx)
			require.NoError(t, err, "%s: Document.grants", what)
		}

		in := knowledge.DocumentInput{Title: "Refunds", SourceURI: "kb://refunds", Content: "# Refunds\n\nRefunds take 14 days."}
		created := e.ingest(t, kb.ID, in)
		edges(t, "ingest (new)", created)

		in.Title = "Refund policy" // same content: metadata only
		renamed := e.ingest(t, kb.ID, in)
		edges(t, "ingest (metadata)", renamed)

		in.Content += "\n\nExpress refunds take 2 days."
		replaced := e.ingest(t, kb.ID, in)
		edges(t, "ingest (new content)", replaced)

		restricted, err := e.svc.SetACL(ctx, created.ID, knowledge.ACL{Visibility: "RESTRICTED", Groups: []string{"ops"}})
		require.NoError(t, err)
		edges(t, "setACL (changed)", restricted)
		for _, g := range restricted.Edges.Grants {
			_, err := g.QueryDocument().Only(ctx)
			require.NoError(t, err, "setACL (changed): DocumentGrant.document")
		}

		same, err := e.svc.SetACL(ctx, created.ID, knowledge.ACL{Visibility: "RESTRICTED", Groups: []string{"ops"}})
		require.NoError(t, err)
		edges(t, "setACL (unchanged)", same)
		require.NotEmpty(t, same.Edges.Grants)
		for _, g := range same.Edges.Grants {
			_, err := g.QueryDocument().Only(ctx)
			require.NoError(t, err, "setACL (unchanged): DocumentGrant.document")
		}

		hits := e.ask(t, olga, kb.ID, "How long do refunds take?", 3)
		require.NotEmpty(t, hits)
		for _, h := range hits {
			_, err := h.Chunk.QueryDocument().Only(ctx)
			require.NoError(t, err, "search: Chunk.document")
			_, err = h.Chunk.QueryKnowledgeBase().Only(ctx)
			require.NoError(t, err, "search: Chunk.knowledgeBase")
		}
	})
}
