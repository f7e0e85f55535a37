package knowledge_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/google/uuid"
	"github.com/pgvector/pgvector-go"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/tokens"
	"github.com/ragchat/ragchat/internal/viewer"
)

// The cast. Tenant "acme" holds the knowledge under test; "globex" is the
// other tenant.
var (
	carol = &viewer.Viewer{TenantID: "acme", UserID: "carol", Roles: []viewer.Role{viewer.RoleAdmin}}
	ada   = &viewer.Viewer{TenantID: "acme", UserID: "ada", Roles: []viewer.Role{viewer.RoleAgent}}
	alice = &viewer.Viewer{TenantID: "acme", UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}, Groups: []string{"sales"}}
	olga  = &viewer.Viewer{TenantID: "acme", UserID: "olga", Roles: []viewer.Role{viewer.RoleMember}, Groups: []string{"ops"}}
	dave  = &viewer.Viewer{TenantID: "globex", UserID: "dave", Roles: []viewer.Role{viewer.RoleMember}}
	erin  = &viewer.Viewer{TenantID: "globex", UserID: "erin", Roles: []viewer.Role{viewer.RoleAdmin}}
)

// as returns a background context acting as v.
func as(v *viewer.Viewer) context.Context { return viewer.NewContext(context.Background(), v) }

// env is a migrated database with both tenants, a service and a retriever.
type env struct {
	db  *store.DB
	emb llm.Embedder
	svc *knowledge.Service
	ret *knowledge.Retriever
}

// newEnv creates the tenants and the service on db.
func newEnv(t testing.TB, db *store.DB, opts knowledge.Options) *env {
	t.Helper()
	createTenants(t, db.Client)
	emb := offline.New(offline.Options{})
	return &env{
		db:  db,
		emb: emb,
		svc: knowledge.NewService(db.Client, emb, tokens.Default(), opts),
		ret: knowledge.NewRetriever(db, knowledge.RetrieverOptions{}),
	}
}

// createTenants creates acme and globex as the provisioning job.
func createTenants(t testing.TB, c *ent.Client) {
	t.Helper()
	sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	for _, tn := range []struct{ id, name string }{{"acme", "Acme"}, {"globex", "Globex"}} {
		require.NoError(t, c.Tenant.Create().SetID(tn.id).SetName(tn.name).Exec(sys))
	}
}

// kb creates a knowledge base as carol.
func (e *env) kb(t testing.TB, name string) *ent.KnowledgeBase {
	t.Helper()
	kb, err := e.svc.CreateKnowledgeBase(as(carol), name, "")
	require.NoError(t, err)
	return kb
}

// ingest ingests a document as carol.
func (e *env) ingest(t testing.TB, kbID uuid.UUID, in knowledge.DocumentInput) *ent.Document {
	t.Helper()
	doc, err := e.svc.Ingest(as(carol), kbID, in)
	require.NoError(t, err)
	return doc
}

// ask embeds question and searches as v.
func (e *env) ask(t testing.TB, v *viewer.Viewer, kbID uuid.UUID, question string, k int) []chat.Hit {
	t.Helper()
	vecs, err := e.emb.Embed(context.Background(), []string{question})
	require.NoError(t, err)
	hits, err := e.ret.Search(as(v), kbID, vecs[0], k)
	require.NoError(t, err)
	return hits
}

// requireCode asserts that err is a domain error with code.
func requireCode(t testing.TB, err error, code domain.Code) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, code, domain.ErrorCode(err), "error: %v", err)
}

// docIDs returns the document ids of hits.
func docIDs(hits []chat.Hit) map[uuid.UUID]int {
	out := map[uuid.UUID]int{}
	for _, h := range hits {
		out[h.Document.ID]++
	}
	return out
}

// randomUnit returns a random unit vector.
func randomUnit(rng *rand.Rand) []float32 {
	v := make([]float32, domain.EmbeddingDimensions)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	if err := llm.Normalize(v); err != nil {
		panic(err)
	}
	return v
}

// near returns a unit vector close to v (noise of relative size eps).
func near(rng *rand.Rand, v []float32, eps float64) []float32 {
	out := make([]float32, len(v))
	for i := range v {
		out[i] = v[i] + float32(eps*rng.NormFloat64()/32)
	}
	if err := llm.Normalize(out); err != nil {
		panic(err)
	}
	return out
}

// rawDocument creates a document row directly through Ent as carol (for
// tests that need chunk vectors of their own choosing).
func rawDocument(t testing.TB, c *ent.Client, kbID uuid.UUID, title string, vis document.Visibility, status document.Status) *ent.Document {
	t.Helper()
	doc, err := c.Document.Create().SetKnowledgeBaseID(kbID).SetTitle(title).
		SetVisibility(vis).SetStatus(status).Save(as(carol))
	require.NoError(t, err)
	return doc
}

// rawChunks creates one chunk per vector for doc through Ent as carol.
func rawChunks(t testing.TB, c *ent.Client, doc *ent.Document, vecs [][]float32) []*ent.Chunk {
	t.Helper()
	var out []*ent.Chunk
	for start := 0; start < len(vecs); start += 500 {
		end := min(start+500, len(vecs))
		builders := make([]*ent.ChunkCreate, 0, end-start)
		for i := start; i < end; i++ {
			builders = append(builders, c.Chunk.Create().SetDocumentID(doc.ID).SetKnowledgeBaseID(doc.KnowledgeBaseID).
				SetOrdinal(i).SetContent(doc.Title+" chunk").SetTokenCount(3).SetEmbedding(pgvector.NewVector(vecs[i])))
		}
		created, err := c.Chunk.CreateBulk(builders...).Save(as(carol))
		require.NoError(t, err)
		out = append(out, created...)
	}
	return out
}
