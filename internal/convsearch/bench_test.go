package convsearch_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/convsearch"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/testdb"
	"github.com/ragchat/ragchat/internal/viewer"
)

// envInt reads a positive integer from the environment, or def.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// BenchmarkSearch measures searchConversations' engine on PostgreSQL: a
// tenant of RAGCHAT_SEARCH_BENCH_USERS users (default 100) with 50
// conversations each, except the searched user with
// RAGCHAT_SEARCH_BENCH_HEAVY (default 10 000), and
// RAGCHAT_SEARCH_BENCH_MESSAGES messages per conversation (default 66: about
// 1M messages in the tenant). It reports p50 and p99 per search and the
// SELECT 1 floor through the same pool.
func BenchmarkSearch(b *testing.B) {
	be := testdb.Backends(b)[0]
	if be.Name != "postgres" {
		b.Skip("PostgreSQL benchmark")
	}
	db := storetest.Open(b, be)
	start := time.Now()
	seedScale(b, db, envInt("RAGCHAT_SEARCH_BENCH_USERS", 100), 50, envInt("RAGCHAT_SEARCH_BENCH_HEAVY", 10000), envInt("RAGCHAT_SEARCH_BENCH_MESSAGES", 66))
	var total int
	_ = db.SQL.QueryRow(`SELECT count(*) FROM messages`).Scan(&total)
	b.Logf("seeded %d messages in %s", total, time.Since(start).Round(time.Millisecond))
	u := &viewer.Viewer{TenantID: "acme", UserID: "user0", Roles: []viewer.Role{viewer.RoleMember}}
	ctx := viewer.NewContext(context.Background(), u)
	queries := []string{"w7", "w42 message", "topic w3"}
	var search, floor []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		if _, err := convsearch.Search(ctx, db.Client, convsearch.Request{Query: queries[i%len(queries)]}); err != nil {
			b.Fatal(err)
		}
		search = append(search, time.Since(t0))
		t1 := time.Now()
		var one int
		if err := db.SQL.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
			b.Fatal(err)
		}
		floor = append(floor, time.Since(t1))
	}
	b.StopTimer()
	pct := func(d []time.Duration, p float64) float64 {
		slices.Sort(d)
		return float64(d[int(float64(len(d)-1)*p)].Microseconds()) / 1000
	}
	b.ReportMetric(pct(search, 0.5), "p50-ms")
	b.ReportMetric(pct(search, 0.99), "p99-ms")
	b.ReportMetric(pct(floor, 0.5), "select1-p50-ms")
}
