package knowledge_test

import (
	"math/rand/v2"
	"testing"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/testdb"
)

// BenchmarkSearchPostgres searches 10,000 chunks through the HNSW index as
// a member, so the ACL predicates are part of every query.
func BenchmarkSearchPostgres(b *testing.B) {
	db := postgresDB(b)
	e := newEnv(b, db, knowledge.Options{})
	kbID, _, tm := bigKB(b, e, 50, 10_000)
	b.Logf("fill: insert %s, HNSW build %s", tm.Insert, tm.Index)
	benchSearch(b, e, kbID)
}

// BenchmarkSearchSQLite scores 2,000 chunks in Go as a member.
func BenchmarkSearchSQLite(b *testing.B) {
	db := storetest.Open(b, testdb.Backend{Name: "sqlite", Dialect: dialect.SQLite, Driver: testdb.SQLiteDriver, DSN: testdb.SQLiteDSN(b)})
	e := newEnv(b, db, knowledge.Options{})
	rng := rand.New(rand.NewPCG(1, 1))
	kb := e.kb(b, "Big")
	for i := range 20 {
		vis := document.VisibilityTENANT
		if i%10 == 9 {
			vis = document.VisibilityRESTRICTED
		}
		doc := rawDocument(b, db.Client, kb.ID, "Doc", vis, document.StatusREADY)
		vecs := make([][]float32, 100)
		for j := range vecs {
			vecs[j] = randomUnit(rng)
		}
		rawChunks(b, db.Client, doc, vecs)
	}
	benchSearch(b, e, kb.ID)
}

func benchSearch(b *testing.B, e *env, kbID uuid.UUID) {
	rng := rand.New(rand.NewPCG(2, 2))
	queries := make([][]float32, 64)
	for i := range queries {
		queries[i] = randomUnit(rng)
	}
	ctx := as(alice)
	b.ResetTimer()
	i := 0
	for b.Loop() {
		hits, err := e.ret.Search(ctx, kbID, queries[i%len(queries)], 8)
		if err != nil || len(hits) != 8 {
			b.Fatalf("search: %d hits, %v", len(hits), err)
		}
		i++
	}
}
