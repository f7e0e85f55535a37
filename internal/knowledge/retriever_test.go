package knowledge_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"
	"github.com/pgvector/pgvector-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// selectiveKB builds a knowledge base where the query's neighbourhood is
// all restricted: 300 ops-only chunks lie close to query, and the 5 chunks
// everyone may read lie far away. A member outside ops must still get 5
// hits, although an HNSW scan meets hundreds of hidden chunks first.
func selectiveKB(t *testing.T, e *env) (kb *ent.KnowledgeBase, public *ent.Document, query []float32) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	kb = e.kb(t, "Selective")
	query = randomUnit(rng)
	secret := rawDocument(t, e.db.Client, kb.ID, "Ops secrets", document.VisibilityRESTRICTED, document.StatusREADY)
	require.NoError(t, e.db.Client.DocumentGrant.Create().SetDocumentID(secret.ID).
		SetPrincipalKind(documentgrant.PrincipalKindGROUP).SetPrincipal("ops").Exec(as(carol)))
	near300 := make([][]float32, 300)
	for i := range near300 {
		near300[i] = near(rng, query, 1)
	}
	rawChunks(t, e.db.Client, secret, near300)
	public = rawDocument(t, e.db.Client, kb.ID, "Public", document.VisibilityTENANT, document.StatusREADY)
	far5 := make([][]float32, 5)
	for i := range far5 {
		far5[i] = randomUnit(rng)
	}
	rawChunks(t, e.db.Client, public, far5)
	return kb, public, query
}

func TestSearchReturnsKRowsWhenKReadableExist(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, knowledge.Options{})
		kb, public, query := selectiveKB(t, e)

		tests := []struct {
			name string
			v    *viewer.Viewer
			k    int
			want int
		}{
			{"member, k equals the readable chunks", alice, 5, 5},
			{"member, k above the readable chunks", alice, 8, 5},
			{"member, k below the readable chunks", alice, 3, 3},
			{"ops member", olga, 8, 8},
			{"admin", carol, 200, 200},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				hits, err := e.ret.Search(as(tc.v), kb.ID, query, tc.k)
				require.NoError(t, err)
				require.Equal(t, tc.want, len(hits))
				if tc.v == alice {
					assert.Equal(t, map[uuid.UUID]int{public.ID: tc.want}, docIDs(hits))
				}
				assert.True(t, slices.IsSortedFunc(hits, func(a, b chat.Hit) int { return -cmpFloat(a.Score, b.Score) }))
			})
		}

		if db.Dialect != dialect.Postgres {
			return
		}
		// Reproduce what a large table does: the planner picks the HNSW
		// index, whose scan (bounded by max_scan_tuples) only meets the
		// restricted neighbours.
		t.Run("HNSW alone under-fills", func(t *testing.T) {
			r := knowledge.NewRetriever(db, knowledge.RetrieverOptions{MaxScanTuples: 50})
			knowledge.ForceIndexPlan(r)
			knowledge.DisableExactFallback(r)
			hits, err := r.Search(as(alice), kb.ID, query, 5)
			require.NoError(t, err)
			assert.Less(t, len(hits), 5)
		})
		t.Run("the exact fallback fills up", func(t *testing.T) {
			r := knowledge.NewRetriever(db, knowledge.RetrieverOptions{MaxScanTuples: 50})
			knowledge.ForceIndexPlan(r)
			var fallbacks atomic.Int32
			knowledge.OnFallback(r, func() { fallbacks.Add(1) })
			hits, err := r.Search(as(alice), kb.ID, query, 5)
			require.NoError(t, err)
			assert.Equal(t, 5, len(hits))
			assert.Equal(t, int32(1), fallbacks.Load())
			assert.Equal(t, map[uuid.UUID]int{public.ID: 5}, docIDs(hits))

			hits, err = r.Search(as(olga), kb.ID, query, 5)
			require.NoError(t, err)
			assert.Equal(t, 5, len(hits))
			assert.Equal(t, int32(1), fallbacks.Load(), "a filled index scan needs no fallback")
		})
	})
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestSearchMatchesBruteForce(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, knowledge.Options{})
		rng := rand.New(rand.NewPCG(3, 4))
		kb := e.kb(t, "Random")
		doc := rawDocument(t, db.Client, kb.ID, "Random", document.VisibilityTENANT, document.StatusREADY)
		vecs := make([][]float32, 400)
		for i := range vecs {
			vecs[i] = randomUnit(rng)
		}
		chunks := rawChunks(t, db.Client, doc, vecs)
		for trial := range 5 {
			query := near(rng, vecs[rng.IntN(len(vecs))], 8)
			want := slices.Clone(chunks)
			slices.SortFunc(want, func(a, b *ent.Chunk) int {
				return -cmpFloat(llm.Cosine(query, a.Embedding.Slice()), llm.Cosine(query, b.Embedding.Slice()))
			})
			hits, err := e.ret.Search(as(alice), kb.ID, query, 10)
			require.NoError(t, err)
			require.Equal(t, 10, len(hits))
			var got, top []uuid.UUID
			for i, h := range hits {
				got = append(got, h.Chunk.ID)
				top = append(top, want[i].ID)
				assert.InDelta(t, llm.Cosine(query, vecs[h.Chunk.Ordinal]), h.Score, 1e-6, "score is the cosine similarity")
			}
			if db.Dialect == dialect.SQLite {
				assert.Equal(t, top, got, "trial %d: SQLite search is exact", trial)
				continue
			}
			// HNSW is approximate; on this small table it must still
			// find the nearest chunk and nearly all of the top ten.
			assert.Equal(t, top[0], got[0], "trial %d", trial)
			common := 0
			for _, id := range got {
				if slices.Contains(top, id) {
					common++
				}
			}
			assert.GreaterOrEqual(t, common, 9, "trial %d: recall@10", trial)
		}
	})
}

func TestSearchIsolatesTenants(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, knowledge.Options{})
		kb, docs := loadDemoDocs(t, e)

		// A globex document and chunk that claim acme's knowledge base id,
		// written by a system job (no viewer could write them).
		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		vecs, err := e.emb.Embed(context.Background(), []string{"globex 退款 refund secret: 3 days"})
		require.NoError(t, err)
		globexKB, err := db.Client.KnowledgeBase.Create().SetTenantID("globex").SetName("G").
			SetEmbeddingModel(e.emb.EmbeddingModel()).SetEmbeddingDimensions(domain.EmbeddingDimensions).Save(sys)
		require.NoError(t, err)
		forgedDoc, err := db.Client.Document.Create().SetTenantID("globex").SetKnowledgeBaseID(globexKB.ID).
			SetTitle("globex doc").SetStatus(document.StatusREADY).Save(sys)
		require.NoError(t, err)
		forged, err := db.Client.Chunk.Create().SetTenantID("globex").SetDocumentID(forgedDoc.ID).SetKnowledgeBaseID(kb.ID).
			SetOrdinal(0).SetContent("globex 退款 refund secret: 3 days").SetTokenCount(8).
			SetEmbedding(pgvector.NewVector(vecs[0])).Save(sys)
		require.NoError(t, err)

		for _, v := range []*viewer.Viewer{alice, olga, carol} {
			hits := e.ask(t, v, kb.ID, "globex 退款 refund secret", 200)
			assert.NotEmpty(t, hits)
			for _, h := range hits {
				assert.Equal(t, "acme", h.Chunk.TenantID, "viewer %s", v.UserID)
				assert.NotEqual(t, forged.ID, h.Chunk.ID)
			}
		}
		for _, v := range []*viewer.Viewer{dave, erin} {
			hits := e.ask(t, v, kb.ID, "银行卡退款多久到账", 200)
			for _, h := range hits {
				assert.Equal(t, "globex", h.Chunk.TenantID, "viewer %s", v.UserID)
				assert.NotContains(t, docIDs(hits), docs["zh/refunds.md"].ID)
			}
			assert.LessOrEqual(t, len(hits), 1, "only globex's own forged row, if anything")
		}
	})
}

func TestSearchSkipsDocumentsThatAreNotReady(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, knowledge.Options{})
		rng := rand.New(rand.NewPCG(5, 6))
		kb := e.kb(t, "Status")
		query := randomUnit(rng)
		docs := map[document.Status]*ent.Document{}
		for _, st := range []document.Status{document.StatusREADY, document.StatusPROCESSING, document.StatusFAILED} {
			docs[st] = rawDocument(t, db.Client, kb.ID, string(st), document.VisibilityTENANT, st)
			rawChunks(t, db.Client, docs[st], [][]float32{near(rng, query, 1), near(rng, query, 1)})
		}
		hits, err := e.ret.Search(as(carol), kb.ID, query, 10)
		require.NoError(t, err)
		assert.Equal(t, map[uuid.UUID]int{docs[document.StatusREADY].ID: 2}, docIDs(hits))
	})
}

func TestSearchArguments(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, knowledge.Options{})
		kb, _ := loadDemoDocs(t, e)
		query := randomUnit(rand.New(rand.NewPCG(7, 8)))

		hits, err := e.ret.Search(as(alice), kb.ID, query, 0)
		require.NoError(t, err)
		assert.Empty(t, hits)
		_, err = e.ret.Search(as(alice), kb.ID, query, knowledge.DefaultMaxK+1)
		requireCode(t, err, domain.CodeBadUserInput)
		_, err = e.ret.Search(as(alice), kb.ID, query[:10], 3)
		assert.Error(t, err, "wrong dimensions")
		_, err = e.ret.Search(as(alice), kb.ID, make([]float32, domain.EmbeddingDimensions), 3)
		assert.Error(t, err, "zero vector")
		_, err = e.ret.Search(context.Background(), kb.ID, query, 3)
		requireCode(t, err, domain.CodeForbidden)
		hits, err = e.ret.Search(as(alice), uuid.New(), query, 3)
		require.NoError(t, err)
		assert.Empty(t, hits, "an unknown knowledge base has no hits")

		ctx, cancel := context.WithCancel(as(alice))
		cancel()
		_, err = e.ret.Search(ctx, kb.ID, query, 3)
		assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
	})
}

// TestSearchReadsNoVectorsBack: a PostgreSQL search, index scan and exact
// fallback alike, selects the distance that PostgreSQL computed and never
// the stored 1,024-float vectors (decoding them dominated the retriever's
// CPU time), sends the query vector once per statement, and still scores
// every hit with its cosine similarity.
func TestSearchReadsNoVectorsBack(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fallback bool
	}{{"index scan", false}, {"exact fallback", true}} {
		t.Run(tc.name, func(t *testing.T) {
			db := postgresDB(t)
			e := newEnv(t, db, knowledge.Options{})
			rng := rand.New(rand.NewPCG(5, 6))
			kb := e.kb(t, "Vectors")
			doc := rawDocument(t, db.Client, kb.ID, "Vectors", document.VisibilityTENANT, document.StatusREADY)
			vecs := make([][]float32, 20)
			for i := range vecs {
				vecs[i] = randomUnit(rng)
			}
			rawChunks(t, db.Client, doc, vecs)
			rec := &recorder{}
			r := knowledge.NewRetriever(recordingDB(db, rec), knowledge.RetrieverOptions{})
			k := 5
			if tc.fallback {
				k = len(vecs) + 1 // fewer readable chunks than k: the exact scan runs too
			}
			query := randomUnit(rng)
			hits, err := r.Search(as(alice), kb.ID, query, k)
			require.NoError(t, err)
			require.Equal(t, min(k, len(vecs)), len(hits))
			for _, h := range hits {
				assert.InDelta(t, llm.Cosine(query, vecs[h.Chunk.Ordinal]), h.Score, 1e-6, "score is the cosine similarity")
				assert.Equal(t, doc.ID, h.Document.ID)
				assert.Equal(t, doc.Title, h.Document.Title)
				assert.Zero(t, len(h.Chunk.Embedding.Slice()), "no vector read back")
			}
			searches := 0
			for _, q := range rec.all() {
				if !strings.Contains(q.Query, "<=>") && !strings.Contains(q.Query, "cosine_distance(") {
					continue
				}
				searches++
				selectList, _, ok := strings.Cut(q.Query, ` FROM "chunks"`)
				require.True(t, ok, q.Query)
				// The distance expression comes last; no column before it
				// is the stored vector.
				columns := selectList
				if i := strings.LastIndex(selectList, ", ("); i >= 0 {
					columns = selectList[:i]
				}
				assert.NotContains(t, columns, "embedding", "stored vectors are not selected")
				vectors := 0
				for _, a := range q.Args {
					if _, ok := a.(pgvector.Vector); ok {
						vectors++
					}
				}
				assert.Equal(t, 1, vectors, "the query vector is sent once")
			}
			want := 1
			if tc.fallback {
				want = 2
			}
			assert.Equal(t, want, searches)
		})
	}
}
