package knowledge_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/tokens"
)

// loadDemoDocs ingests the demo corpus into a new knowledge base of acme
// and returns it with the documents by demo path.
func loadDemoDocs(t *testing.T, e *env) (*ent.KnowledgeBase, map[string]*ent.Document) {
	t.Helper()
	kb := e.kb(t, "Help")
	docs := map[string]*ent.Document{}
	for _, d := range demo.Documents() {
		text, err := demo.Read(d.Path)
		require.NoError(t, err)
		acl := knowledge.ACL{Visibility: knowledge.VisibilityTenant}
		if d.Restricted() {
			acl = knowledge.ACL{Visibility: knowledge.VisibilityRestricted, Groups: d.Groups}
		}
		docs[d.Path] = e.ingest(t, kb.ID, knowledge.DocumentInput{Title: d.Title, SourceURI: d.SourceURI, Content: text, ACL: acl})
	}
	return kb, docs
}

func TestIngestAndSearchFindsTheRightChunk(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, knowledge.Options{})
		kb, docs := loadDemoDocs(t, e)

		for _, d := range docs {
			assert.Equal(t, document.StatusREADY, d.Status)
			assert.Equal(t, 1, d.Version)
			assert.Len(t, d.Checksum, 64)
		}
		tests := []struct {
			question string
			doc      string // demo path of the expected top document
			contains string // text the top chunk must contain
		}{
			{"上传文件超过限制返回什么错误码", "zh/upload-limits.md", "ERR_FILE_TOO_LARGE"},
			{"管理员上传文件的上限是多少", "zh/upload-limits.md", "100MB"},
			{"银行卡退款多久到账", "zh/refunds.md", "3–7 个工作日"},
			{"how long do bank card refunds take", "en/refunds.md", "3–7 business days"},
			{"what error code is returned when an upload exceeds the size limit", "en/upload-limits.md", "ERR_FILE_TOO_LARGE"},
			{"PostgreSQL 如何创建 HNSW 索引", "zh/pgvector-hnsw.md", "USING hnsw"},
		}
		for _, tc := range tests {
			t.Run(tc.question, func(t *testing.T) {
				hits := e.ask(t, alice, kb.ID, tc.question, 5)
				require.Equal(t, 5, len(hits))
				top := hits[0]
				assert.Equal(t, docs[tc.doc].ID, top.Document.ID, "top hit: %s / %s", top.Document.Title, top.Chunk.Content)
				// The answer chunk is among the evidence the engine passes on.
				// (With the offline model a document's "this article explains
				// …" introduction can outrank it: it repeats the question's
				// words.)
				rank := slices.IndexFunc(hits, func(h chat.Hit) bool { return strings.Contains(h.Chunk.Content, tc.contains) })
				assert.True(t, rank >= 0 && rank < 3, "the chunk with %q ranks %d", tc.contains, rank)
				assert.Equal(t, docs[tc.doc].ID, hits[max(rank, 0)].Document.ID)
				for i := 1; i < len(hits); i++ {
					assert.GreaterOrEqual(t, hits[i-1].Score, hits[i].Score, "hits are best first")
				}
				assert.Greater(t, top.Score, 0.0)
				assert.LessOrEqual(t, top.Score, 1.0+1e-6)
			})
		}
	})
}

func TestIngestStoresChunksGrantsAndChecksum(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, knowledge.Options{ChunkTokens: 60})
		kb := e.kb(t, "Help")
		text, err := demo.Read("zh/ops-upload-runbook.md")
		require.NoError(t, err)
		doc := e.ingest(t, kb.ID, knowledge.DocumentInput{
			Title: " Runbook ", SourceURI: "wiki://runbook", Content: text,
			ACL: knowledge.ACL{Visibility: "restricted", Groups: []string{"ops", " ops", "sre"}, Users: []string{"bob"}},
		})
		assert.Equal(t, "Runbook", doc.Title, "title is trimmed")
		assert.Equal(t, document.VisibilityRESTRICTED, doc.Visibility)

		ctx := as(carol)
		chunks, err := db.Client.Chunk.Query().Where(chunk.DocumentID(doc.ID)).Order(ent.Asc(chunk.FieldOrdinal)).All(ctx)
		require.NoError(t, err)
		require.Greater(t, len(chunks), 3, "a small chunk size gives several chunks")
		for i, c := range chunks {
			assert.Equal(t, i, c.Ordinal)
			assert.Equal(t, kb.ID, c.KnowledgeBaseID)
			assert.LessOrEqual(t, c.TokenCount, 60)
			assert.Equal(t, tokens.Default().Count(c.Content), c.TokenCount)
			assert.Len(t, c.Embedding.Slice(), domain.EmbeddingDimensions)
		}
		grants, err := db.Client.DocumentGrant.Query().Where(documentgrant.DocumentID(doc.ID)).All(ctx)
		require.NoError(t, err)
		var got []string
		for _, g := range grants {
			got = append(got, string(g.PrincipalKind)+":"+g.Principal)
		}
		assert.ElementsMatch(t, []string{"GROUP:ops", "GROUP:sre", "USER:bob"}, got, "principals are trimmed and de-duplicated")
	})
}

func TestReingest(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, knowledge.Options{})
		kb := e.kb(t, "Help")
		ctx := as(carol)
		chunkIDs := func(docID uuid.UUID) []uuid.UUID {
			ids, err := db.Client.Chunk.Query().Where(chunk.DocumentID(docID)).IDs(ctx)
			require.NoError(t, err)
			return ids
		}
		v1 := knowledge.DocumentInput{Title: "Parking", SourceURI: "https://help/parking", Content: "# Parking\n\nVisitors park on level 3 of the garage."}
		first, err := db.Client.Document.Get(ctx, e.ingest(t, kb.ID, v1).ID) // as stored
		require.NoError(t, err)
		firstChunks := chunkIDs(first.ID)

		t.Run("identical content returns the stored document unchanged", func(t *testing.T) {
			again := e.ingest(t, kb.ID, v1)
			assert.Equal(t, first.ID, again.ID)
			assert.Equal(t, 1, again.Version)
			assert.True(t, first.UpdatedAt.Equal(again.UpdatedAt), "not updated")
			assert.ElementsMatch(t, firstChunks, chunkIDs(first.ID), "chunks are kept")
		})

		t.Run("same content with a new ACL changes only the ACL", func(t *testing.T) {
			in := v1
			in.ACL = knowledge.ACL{Visibility: knowledge.VisibilityRestricted, Groups: []string{"ops"}}
			doc := e.ingest(t, kb.ID, in)
			assert.Equal(t, first.ID, doc.ID)
			assert.Equal(t, 1, doc.Version)
			assert.Equal(t, document.VisibilityRESTRICTED, doc.Visibility)
			assert.ElementsMatch(t, firstChunks, chunkIDs(first.ID))
			assert.Empty(t, e.ask(t, alice, kb.ID, "where do visitors park", 3), "the new ACL applies")
			n, err := db.Client.AuditEvent.Query().Where(auditevent.Action(knowledge.ActionACLChanged), auditevent.TargetID(doc.ID.String())).Count(ctx)
			require.NoError(t, err)
			assert.Equal(t, 1, n)
			e.ingest(t, kb.ID, v1) // back to TENANT
		})

		t.Run("changed content replaces the chunks and bumps the version", func(t *testing.T) {
			v2 := v1
			v2.Content = "# Parking\n\nVisitors now park on level 5; level 3 is closed for repairs."
			doc := e.ingest(t, kb.ID, v2)
			assert.Equal(t, first.ID, doc.ID)
			assert.Equal(t, 2, doc.Version)
			assert.NotEqual(t, first.Checksum, doc.Checksum)
			now := chunkIDs(doc.ID)
			require.NotEmpty(t, now)
			for _, id := range firstChunks {
				assert.NotContains(t, now, id, "old chunks are gone")
			}
			hits := e.ask(t, alice, kb.ID, "where do visitors park", 3)
			require.Equal(t, 1, len(hits))
			assert.Contains(t, hits[0].Chunk.Content, "level 5")
			n, err := db.Client.Document.Query().Where(document.KnowledgeBaseID(kb.ID)).Count(ctx)
			require.NoError(t, err)
			assert.Equal(t, 1, n, "no duplicate document")
		})

		t.Run("without a source URI the title identifies the document", func(t *testing.T) {
			a := e.ingest(t, kb.ID, knowledge.DocumentInput{Title: "FAQ", Content: "Q: Is there Wi-Fi? A: Yes, network guest."})
			b := e.ingest(t, kb.ID, knowledge.DocumentInput{Title: "FAQ", Content: "Q: Is there Wi-Fi? A: Yes, network guest-5g."})
			assert.Equal(t, a.ID, b.ID)
			assert.Equal(t, 2, b.Version)
			c := e.ingest(t, kb.ID, knowledge.DocumentInput{Title: "FAQ", SourceURI: "https://help/faq", Content: "other"})
			assert.NotEqual(t, a.ID, c.ID, "a document with a source URI is another document")
		})
	})
}

func TestIngestValidationErrorsAreTyped(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, knowledge.Options{MaxDocumentBytes: 1000})
		kb := e.kb(t, "Help")
		ok := knowledge.DocumentInput{Title: "T", Content: "Some text."}
		tests := []struct {
			name   string
			mutate func(*knowledge.DocumentInput)
		}{
			{"empty title", func(in *knowledge.DocumentInput) { in.Title = "  " }},
			{"title too long", func(in *knowledge.DocumentInput) { in.Title = strings.Repeat("标", 200) }},
			{"control character in title", func(in *knowledge.DocumentInput) { in.Title = "a\x00b" }},
			{"source URI too long", func(in *knowledge.DocumentInput) { in.SourceURI = strings.Repeat("u", 2001) }},
			{"empty content", func(in *knowledge.DocumentInput) { in.Content = "" }},
			{"blank content", func(in *knowledge.DocumentInput) { in.Content = " \n\t " }},
			{"content of control characters only", func(in *knowledge.DocumentInput) { in.Content = "\x01\x02\x03" }},
			{"invalid UTF-8", func(in *knowledge.DocumentInput) { in.Content = "ok \xff\xfe" }},
			{"content too large", func(in *knowledge.DocumentInput) { in.Content = strings.Repeat("a ", 501) }},
			{"unknown visibility", func(in *knowledge.DocumentInput) { in.ACL.Visibility = "PUBLIC" }},
			{"restricted without principals", func(in *knowledge.DocumentInput) { in.ACL.Visibility = knowledge.VisibilityRestricted }},
			{"restricted with blank principal", func(in *knowledge.DocumentInput) {
				in.ACL = knowledge.ACL{Visibility: knowledge.VisibilityRestricted, Groups: []string{" "}}
			}},
			{"principal too long", func(in *knowledge.DocumentInput) {
				in.ACL = knowledge.ACL{Visibility: knowledge.VisibilityRestricted, Users: []string{strings.Repeat("x", 129)}}
			}},
			{"tenant visibility with principals", func(in *knowledge.DocumentInput) { in.ACL.Groups = []string{"ops"} }},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				in := ok
				tc.mutate(&in)
				_, err := e.svc.Ingest(as(carol), kb.ID, in)
				requireCode(t, err, domain.CodeBadUserInput)
			})
		}
		n, err := db.Client.Document.Query().Count(as(carol))
		require.NoError(t, err)
		assert.Zero(t, n, "nothing was stored")

		_, err = e.svc.Ingest(as(carol), kb.ID, knowledge.DocumentInput{Title: "T", Content: strings.Repeat("a ", 500),
			ACL: knowledge.ACL{Visibility: knowledge.VisibilityRestricted, Users: []string{strings.Repeat("x", 128)}}})
		assert.NoError(t, err, "limits are inclusive")
	})
}

func TestIngestPermissionsAndTenancy(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, knowledge.Options{})
		kb := e.kb(t, "Help")
		in := knowledge.DocumentInput{Title: "T", Content: "text"}

		_, err := e.svc.Ingest(as(alice), kb.ID, in)
		requireCode(t, err, domain.CodeForbidden)
		_, err = e.svc.CreateKnowledgeBase(as(alice), "Mine", "")
		requireCode(t, err, domain.CodeForbidden)
		_, err = e.svc.Ingest(context.Background(), kb.ID, in)
		requireCode(t, err, domain.CodeUnauthenticated)

		_, err = e.svc.Ingest(as(erin), kb.ID, in)
		requireCode(t, err, domain.CodeNotFound)
		_, err = e.svc.Ingest(as(carol), uuid.New(), in)
		requireCode(t, err, domain.CodeNotFound)

		doc, err := e.svc.Ingest(as(ada), kb.ID, in)
		require.NoError(t, err, "agents curate knowledge")
		assert.Equal(t, "acme", doc.TenantID)

		_, err = e.svc.CreateKnowledgeBase(as(ada), "Help", "")
		requireCode(t, err, domain.CodeConflict)
		other, err := e.svc.CreateKnowledgeBase(as(erin), "Help", "globex's own")
		require.NoError(t, err, "names are unique per tenant only")
		assert.Equal(t, "globex", other.TenantID)
		assert.Equal(t, offlineModel(e), other.EmbeddingModel)
		assert.Equal(t, domain.EmbeddingDimensions, other.EmbeddingDimensions)
	})
}

func offlineModel(e *env) string { return e.emb.EmbeddingModel() }

// hookEmbedder wraps an embedder and runs before on every call.
type hookEmbedder struct {
	llm.Embedder
	model  string
	before func(ctx context.Context) error
	calls  atomic.Int32
}

func (h *hookEmbedder) EmbeddingModel() string {
	if h.model != "" {
		return h.model
	}
	return h.Embedder.EmbeddingModel()
}

func (h *hookEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	h.calls.Add(1)
	if h.before != nil {
		if err := h.before(ctx); err != nil {
			return nil, err
		}
	}
	return h.Embedder.Embed(ctx, texts)
}

func TestIngestEmbeddingOutsideTransactions(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, knowledge.Options{ChunkTokens: 40, EmbedBatch: 2})
		kb := e.kb(t, "Help")
		text, err := demo.Read("en/upload-limits.md")
		require.NoError(t, err)

		// While the model embeds, another writer updates the knowledge base
		// row (which Ingest's transaction locks) and, on SQLite, takes the
		// database's write lock. Both would wait for a transaction held
		// across the model call and time out.
		h := &hookEmbedder{Embedder: e.emb}
		h.before = func(context.Context) error {
			ctx, cancel := context.WithTimeout(as(carol), 5*time.Second)
			defer cancel()
			return db.Client.KnowledgeBase.UpdateOneID(kb.ID).SetDescription("touched").Exec(ctx)
		}
		svc := knowledge.NewService(db.Client, h, tokens.Default(), knowledge.Options{ChunkTokens: 40, EmbedBatch: 2})
		doc, err := svc.Ingest(as(carol), kb.ID, knowledge.DocumentInput{Title: "Upload", Content: text})
		require.NoError(t, err)
		n, err := db.Client.Chunk.Query().Where(chunk.DocumentID(doc.ID)).Count(as(carol))
		require.NoError(t, err)
		assert.Equal(t, int32((n+1)/2), h.calls.Load(), "chunks are embedded in batches of EmbedBatch")
	})
}

func TestIngestModelFailuresAndCancellation(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, knowledge.Options{})
		kb := e.kb(t, "Help")
		in := knowledge.DocumentInput{Title: "T", Content: "Some text."}
		count := func() int {
			n, err := db.Client.Document.Query().Count(as(carol))
			require.NoError(t, err)
			return n
		}

		failing := &hookEmbedder{Embedder: e.emb, before: func(context.Context) error {
			return llm.Errorf(llm.KindUnavailable, "down")
		}}
		_, err := knowledge.NewService(db.Client, failing, nil, knowledge.Options{}).Ingest(as(carol), kb.ID, in)
		requireCode(t, err, domain.CodeModelUnavailable)

		limited := &hookEmbedder{Embedder: e.emb, before: func(context.Context) error {
			return llm.Errorf(llm.KindRateLimited, "slow down")
		}}
		_, err = knowledge.NewService(db.Client, limited, nil, knowledge.Options{}).Ingest(as(carol), kb.ID, in)
		requireCode(t, err, domain.CodeRateLimited)

		ctx, cancel := context.WithCancel(as(carol))
		cancelling := &hookEmbedder{Embedder: e.emb, before: func(ctx context.Context) error {
			cancel()
			return llm.ContextError(ctx.Err())
		}}
		_, err = knowledge.NewService(db.Client, cancelling, nil, knowledge.Options{}).Ingest(ctx, kb.ID, in)
		assert.True(t, errors.Is(err, context.Canceled), "got %v", err)

		other := &hookEmbedder{Embedder: e.emb, model: "text-embedding-3-small"}
		_, err = knowledge.NewService(db.Client, other, nil, knowledge.Options{}).Ingest(as(carol), kb.ID, in)
		requireCode(t, err, domain.CodeConflict)

		assert.Zero(t, count(), "failed ingests store nothing")
	})
}

func TestConcurrentIngestsOfOneSourceCreateOneDocument(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, knowledge.Options{})
		kb := e.kb(t, "Help")
		text, err := demo.Read("en/refunds.md")
		require.NoError(t, err)
		in := knowledge.DocumentInput{Title: "Refunds", SourceURI: "https://help/refunds", Content: text}

		const n = 4
		ids := make([]uuid.UUID, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				doc, err := e.svc.Ingest(as(carol), kb.ID, in)
				errs[i] = err
				if err == nil {
					ids[i] = doc.ID
				}
			}()
		}
		wg.Wait()
		for i := range n {
			require.NoError(t, errs[i])
			assert.Equal(t, ids[0], ids[i], "every ingest returns the one document")
		}
		docs, err := db.Client.Document.Query().Where(document.KnowledgeBaseID(kb.ID)).All(as(carol))
		require.NoError(t, err)
		require.Len(t, docs, 1)
		assert.Equal(t, 1, docs[0].Version, "identical content never bumps the version")
	})
}
