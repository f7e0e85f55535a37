package chat_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
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

// pgPlanScans returns "relation index-or-node-type" for every scan of an
// EXPLAIN (FORMAT JSON) plan.
func pgPlanScans(node map[string]any, out []string) []string {
	if rel, ok := node["Relation Name"].(string); ok {
		how, _ := node["Index Name"].(string)
		if how == "" {
			how = node["Node Type"].(string)
		}
		out = append(out, rel+" "+how)
	}
	children, _ := node["Plans"].([]any)
	for _, p := range children {
		out = pgPlanScans(p.(map[string]any), out)
	}
	return out
}

// windowScans explains q with args on db and returns its scans as
// "table index" ("table SCAN" for a full scan): from the JSON plan on
// PostgreSQL, from EXPLAIN QUERY PLAN's SEARCH and SCAN lines on SQLite
// (an alias such as the walk's m stands for messages).
func windowScans(t *testing.T, db *store.DB, q string, args []any) []string {
	t.Helper()
	ctx := context.Background()
	if db.Dialect == dialect.Postgres {
		var plan string
		require.NoError(t, db.SQL.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) "+q, args...).Scan(&plan))
		var doc []map[string]any
		require.NoError(t, json.Unmarshal([]byte(plan), &doc))
		return pgPlanScans(doc[0]["Plan"].(map[string]any), nil)
	}
	rows, err := db.SQL.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, args...)
	require.NoError(t, err)
	defer rows.Close()
	alias := map[string]string{"m": "messages"}
	var out []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		require.NoError(t, rows.Scan(&id, &parent, &unused, &detail))
		f := strings.Fields(detail)
		if len(f) < 2 || (f[0] != "SEARCH" && f[0] != "SCAN") {
			continue
		}
		table := f[1]
		if a, ok := alias[table]; ok {
			table = a
		}
		how := "SCAN"
		if i := slices.Index(f, "INDEX"); i >= 0 && i+1 < len(f) {
			how = f[i+1]
		}
		out = append(out, table+" "+how)
	}
	require.NoError(t, rows.Err())
	return out
}

// TestWindowPlanOnYoungTables: the window read (the walk up the message
// tree, its attempts and its sources' flags) reads messages by primary
// key and sources by attempt, whatever the database has seen of its
// tables (docs/ENGINE.md, "Planner statistics"). A 2,000-round
// conversation is written to a database whose statistics describe two
// rounds. On PostgreSQL those are ANALYZE's, as a new deployment's first
// minutes leave them, and internal/planstats must analyse the grown tables
// first; before it, PostgreSQL read the walk's every step through the
// whole conversation's index (the log shows the plan). On SQLite, which no
// deployment analyses, they are the store's modelled statistics; without
// them SQLite read the window's messages and each flag's sources through
// the owner's index, 18.7 ms against 0.56 ms a read at 4,000 messages.
func TestWindowPlanOnYoungTables(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, raw *store.DB) {
		ctx := context.Background()
		capture := &storetest.Capture{Driver: entsql.OpenDB(raw.Dialect, raw.SQL)}
		db := &store.DB{Client: store.NewClient(capture, raw.Dialect), SQL: raw.SQL, Dialect: raw.Dialect, Session: raw.Session}
		e := newEnv(t, db)
		first := e.conversation(t, alice)
		seedRounds(t, e, first, 2, 8)
		if raw.Dialect == dialect.Postgres {
			// Autovacuum, which may visit this database while a busy
			// machine runs the test, is kept away from the tables the
			// keeper must analyse.
			for _, table := range []string{"messages", "sources", "attempts"} {
				_, err := raw.SQL.ExecContext(ctx, "ALTER TABLE "+table+" SET (autovacuum_enabled = false)")
				require.NoError(t, err)
			}
			_, err := raw.SQL.ExecContext(ctx, "ANALYZE")
			require.NoError(t, err)
		}
		conv := e.conversation(t, alice)
		seedRounds(t, e, conv, 2000, 8)
		require.NoError(t, treebackfill.Conversation(ctx, raw.Client, conv.ID))

		explain := func() []string {
			t.Helper()
			_, err := e.eng.PreviewContext(as(alice), conv.ID, "那超过以后返回什么错误码？")
			require.NoError(t, err)
			st, ok := capture.Last("tree_walk")
			require.True(t, ok, "the window statement was not sent")
			return windowScans(t, raw, st.Query, st.Args)
		}
		if raw.Dialect == dialect.Postgres {
			t.Logf("window scans before the keeper: %v", explain())
			// The seeding connections report their changes to the
			// statistics system within a second or so of going idle.
			keeper := planstats.New(raw.SQL, nil)
			var tables []string
			for deadline := time.Now().Add(30 * time.Second); !slices.Contains(tables, "sources") && time.Now().Before(deadline); {
				got, err := keeper.Tick(ctx)
				require.NoError(t, err)
				tables = append(tables, got...)
				time.Sleep(100 * time.Millisecond)
			}
			require.Contains(t, tables, "messages")
			require.Contains(t, tables, "sources")
			again, err := keeper.Tick(ctx)
			require.NoError(t, err)
			require.Empty(t, again, "tables analysed a moment ago are not young")
		}
		scans := explain()
		t.Logf("window scans: %v", scans)
		byKey := map[string]string{
			dialect.Postgres: "messages_pkey", dialect.SQLite: "sqlite_autoindex_messages_1",
		}[raw.Dialect]
		var messages, sources int
		for _, s := range scans {
			rel, how, _ := strings.Cut(s, " ")
			switch rel {
			case "messages":
				messages++
				require.Equal(t, byKey, how, "messages must be read by primary key: %v", scans)
			case "sources":
				sources++
				require.Equal(t, "source_attempt_id_rank", how, "sources must be read by attempt: %v", scans)
			}
		}
		require.Equal(t, 3, messages, "the walk's two terms and the read: %v", scans)
		require.Equal(t, 2, sources, "the two source flags: %v", scans)
	})
}
