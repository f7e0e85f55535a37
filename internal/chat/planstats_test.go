package chat_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/chat/treebackfill"
	"github.com/ragchat/ragchat/internal/planstats"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// captureDriver records the last statement whose text contains match,
// with its arguments.
type captureDriver struct {
	dialect.Driver
	match string
	mu    *sync.Mutex
	query *string
	args  *[]any
}

func (d captureDriver) Query(ctx context.Context, q string, args, v any) error {
	if strings.Contains(q, d.match) {
		d.mu.Lock()
		*d.query, *d.args = q, args.([]any)
		d.mu.Unlock()
	}
	return d.Driver.Query(ctx, q, args, v)
}

func (d captureDriver) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if strings.Contains(q, d.match) {
		d.mu.Lock()
		*d.query, *d.args = q, args
		d.mu.Unlock()
	}
	return d.Driver.(execQuerier).QueryContext(ctx, q, args...)
}

// planScans returns "relation index-or-scan-type" for every scan in an
// EXPLAIN (FORMAT JSON) plan.
func planScans(node map[string]any, out []string) []string {
	if rel, ok := node["Relation Name"].(string); ok {
		how, _ := node["Index Name"].(string)
		if how == "" {
			how = node["Node Type"].(string)
		}
		out = append(out, rel+" "+how)
	}
	children, _ := node["Plans"].([]any)
	for _, p := range children {
		out = planScans(p.(map[string]any), out)
	}
	return out
}

// TestWindowPlanOnYoungTables: the window read (the walk up the message
// tree, its attempts and its sources' flags) reads messages by primary
// key and sources by attempt once internal/planstats has analysed tables
// that grew past their statistics. The database is analysed while almost
// empty and then given a 2,000-round conversation, as a new deployment's
// first minutes (or a benchmark's) leave it; there, PostgreSQL had read
// the walk's every step through the whole conversation's index and each
// source flag through the owner's (docs/ENGINE.md, "Planner statistics"),
// which the log shows.
func TestWindowPlanOnYoungTables(t *testing.T) {
	var pg []*store.DB
	for _, b := range storetest.Backends(t) {
		if b.Name == "postgres" {
			pg = append(pg, storetest.Open(t, b))
		}
	}
	if len(pg) == 0 {
		t.Skip("PostgreSQL only")
	}
	raw := pg[0]
	ctx := context.Background()
	var (
		mu    sync.Mutex
		query string
		args  []any
	)
	db := &store.DB{Client: store.NewClient(captureDriver{Driver: entsql.OpenDB(raw.Dialect, raw.SQL), match: "tree_walk", mu: &mu, query: &query, args: &args}, raw.Dialect), SQL: raw.SQL, Dialect: raw.Dialect, Session: raw.Session}
	e := newEnv(t, db)
	first := e.conversation(t, alice)
	seedRounds(t, e, first, 2, 8)
	_, err := raw.SQL.ExecContext(ctx, "ANALYZE")
	require.NoError(t, err)
	conv := e.conversation(t, alice)
	seedRounds(t, e, conv, 2000, 8)
	require.NoError(t, treebackfill.Conversation(ctx, raw.Client, conv.ID))

	explain := func() []string {
		t.Helper()
		_, err := e.eng.PreviewContext(as(alice), conv.ID, "那超过以后返回什么错误码？")
		require.NoError(t, err)
		mu.Lock()
		q, a := query, args
		mu.Unlock()
		require.NotEmpty(t, q, "the window statement was not sent")
		var plan string
		require.NoError(t, raw.SQL.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) "+q, a...).Scan(&plan))
		var doc []map[string]any
		require.NoError(t, json.Unmarshal([]byte(plan), &doc))
		return planScans(doc[0]["Plan"].(map[string]any), nil)
	}
	t.Logf("window scans before the keeper: %v", explain())

	// The seeding connections report their changes to the statistics
	// system within a second or so of going idle.
	keeper := planstats.New(raw.SQL, nil)
	var tables []string
	deadline := time.Now().Add(30 * time.Second)
	for !slices.Contains(tables, "sources") && time.Now().Before(deadline) {
		got, err := keeper.Tick(ctx)
		require.NoError(t, err)
		tables = append(tables, got...)
		time.Sleep(100 * time.Millisecond)
	}
	require.Contains(t, tables, "messages")
	require.Contains(t, tables, "sources")
	scans := explain()
	t.Logf("window scans after the keeper: %v", scans)
	var messages, sources int
	for _, s := range scans {
		rel, how, _ := strings.Cut(s, " ")
		switch rel {
		case "messages":
			messages++
			require.Equal(t, "messages_pkey", how, "messages must be read by primary key: %v", scans)
		case "sources":
			sources++
			require.Equal(t, "source_attempt_id_rank", how, "sources must be read by attempt: %v", scans)
		}
	}
	require.Equal(t, 3, messages, fmt.Sprint("the walk's two terms and the read: ", scans))
	require.Equal(t, 2, sources, fmt.Sprint("the two source flags: ", scans))

	again, err := keeper.Tick(ctx)
	require.NoError(t, err)
	require.Empty(t, again, "tables analysed a moment ago are not young")
}
