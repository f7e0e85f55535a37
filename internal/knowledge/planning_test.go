package knowledge_test

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/knowledge"
)

// TestSearchPlanningTime reports the median planning time of a member's
// search statement (EXPLAIN (ANALYZE, SUMMARY), "Planning Time") over 30
// runs, for docs/BENCHMARKS.md ("Planning: statements in transactions, the
// ACL once"). It is a measurement, not a check: it runs only with
// RAGCHAT_PLANNING=1.
func TestSearchPlanningTime(t *testing.T) {
	if os.Getenv("RAGCHAT_PLANNING") != "1" {
		t.Skip("a measurement: set RAGCHAT_PLANNING=1")
	}
	db := postgresDB(t)
	e := newEnv(t, db, knowledge.Options{})
	kbID, _, _ := bigKB(t, e, 50, 2000)
	rec := &recorder{}
	r := knowledge.NewRetriever(recordingDB(db, rec), knowledge.RetrieverOptions{})
	query := randomUnit(rand.New(rand.NewPCG(9, 9)))
	_, err := r.Search(as(alice), kbID, query, 8)
	require.NoError(t, err)
	var search *recorded
	for _, q := range rec.all() {
		if strings.Contains(q.Query, "<=>") {
			search = &q
			break
		}
	}
	require.NotNil(t, search)
	ctx := context.Background()
	var planning []float64
	for range 30 {
		rows, err := db.SQL.QueryContext(ctx, "EXPLAIN (ANALYZE, SUMMARY) "+search.Query, search.Args...)
		require.NoError(t, err)
		for rows.Next() {
			var line string
			require.NoError(t, rows.Scan(&line))
			if ms, ok := strings.CutPrefix(strings.TrimSpace(line), "Planning Time: "); ok {
				v, err := strconv.ParseFloat(strings.TrimSuffix(ms, " ms"), 64)
				require.NoError(t, err)
				planning = append(planning, v)
			}
		}
		require.NoError(t, rows.Close())
	}
	slices.Sort(planning)
	t.Logf("search statement: %d bytes, planning median %.3f ms, min %.3f ms", len(search.Query), planning[len(planning)/2], planning[0])
}
