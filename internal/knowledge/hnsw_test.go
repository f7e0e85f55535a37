package knowledge_test

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/testdb"
)

// hnswChunks is the size of the table in the HNSW plan test: enough for
// PostgreSQL to prefer the index to a scan and sort of the table (it did
// at 10,000 and at 50,000; building the index is most of the test's time).
const hnswChunks = 10_000

// postgresDB opens a migrated PostgreSQL database (there is no SQLite
// counterpart of an index plan).
func postgresDB(t testing.TB) *store.DB {
	t.Helper()
	return storetest.Open(t, testdb.Backend{Name: "postgres", Dialect: dialect.Postgres, Driver: testdb.PostgresDriver, DSN: testdb.PostgresURL(t)})
}

// bigKB creates a knowledge base of acme with docs documents (every tenth
// restricted to ops) and fills it with n random chunks.
func bigKB(t testing.TB, e *env, docs, n int) (uuid.UUID, map[uuid.UUID]bool, fillTimings) {
	t.Helper()
	kb := e.kb(t, "Big")
	restricted := map[uuid.UUID]bool{}
	var ids []uuid.UUID
	for i := range docs {
		vis := document.VisibilityTENANT
		if i%10 == 9 {
			vis = document.VisibilityRESTRICTED
		}
		d := rawDocument(t, e.db.Client, kb.ID, "Doc", vis, document.StatusREADY)
		if vis == document.VisibilityRESTRICTED {
			restricted[d.ID] = true
			require.NoError(t, e.db.Client.DocumentGrant.Create().SetDocumentID(d.ID).
				SetPrincipalKind(documentgrant.PrincipalKindGROUP).SetPrincipal("ops").Exec(as(carol)))
		}
		ids = append(ids, d.ID)
	}
	return kb.ID, restricted, fillChunks(t, e.db, "acme", kb.ID, ids, n)
}

// TestHNSWIndexServesTheRetrieverQuery fills hnswChunks chunks, captures the
// exact statement the retriever sends for a member's search (privacy
// predicates included) and checks that PostgreSQL answers it with the
// chunks_embedding_hnsw index.
func TestHNSWIndexServesTheRetrieverQuery(t *testing.T) {
	if testing.Short() {
		t.Skip("fills hnswChunks chunks; skipped with -short")
	}
	start := time.Now()
	db := postgresDB(t)
	e := newEnv(t, db, knowledge.Options{})
	kbID, restricted, tm := bigKB(t, e, 50, hnswChunks)
	t.Logf("filled %d chunks: insert %s, HNSW build %s, analyze %s", hnswChunks,
		tm.Insert.Round(time.Millisecond), tm.Index.Round(time.Millisecond), tm.Analyze.Round(time.Millisecond))

	rec := &recorder{}
	r := knowledge.NewRetriever(recordingDB(db, rec), knowledge.RetrieverOptions{})
	query := randomUnit(rand.New(rand.NewPCG(9, 9)))
	const k = 8
	searchStart := time.Now()
	hits, err := r.Search(as(alice), kbID, query, k)
	require.NoError(t, err)
	t.Logf("first search: %s", time.Since(searchStart).Round(time.Microsecond))
	require.Equal(t, k, len(hits))
	for _, h := range hits {
		assert.False(t, restricted[h.Document.ID], "alice is not in ops")
	}

	var search *recorded
	for _, q := range rec.all() {
		if strings.Contains(q.Query, "<=>") {
			search = &q
			break
		}
	}
	require.NotNil(t, search, "the retriever's nearest-neighbour query")
	assert.Contains(t, search.Query, `"chunks"."tenant_id" = $`, "the tenant predicate is in the statement")
	assert.Contains(t, search.Query, `"visibility" = $`, "the ACL predicate is in the statement")
	assert.NotContains(t, search.Query, "cosine_distance(", "the index query, not the exact fallback")

	plan := explain(t, db, r, k, *search)
	t.Logf("EXPLAIN ANALYZE of the retriever's query:\n%s", plan)
	assert.Contains(t, plan, "Index Scan using chunks_embedding_hnsw on chunks")
	t.Logf("whole test: %s", time.Since(start).Round(time.Millisecond))
}

// explain runs EXPLAIN ANALYZE of q in a transaction with the retriever's
// session settings, as the retriever runs it.
func explain(t testing.TB, db *store.DB, r *knowledge.Retriever, k int, q recorded) string {
	t.Helper()
	ctx := context.Background()
	tx, err := db.SQL.BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead})
	require.NoError(t, err)
	defer func() { _ = tx.Rollback() }()
	for _, stmt := range knowledge.SessionSettings(r, k) {
		_, err := tx.ExecContext(ctx, stmt)
		require.NoError(t, err)
	}
	rows, err := tx.QueryContext(ctx, "EXPLAIN (ANALYZE, COSTS OFF, BUFFERS OFF) "+q.Query, q.Args...)
	require.NoError(t, err)
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var line string
		require.NoError(t, rows.Scan(&line))
		lines = append(lines, line)
	}
	require.NoError(t, rows.Err())
	return strings.Join(lines, "\n")
}
