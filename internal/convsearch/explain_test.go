package convsearch_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/convsearch"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/testdb"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestExplainUsesIndex seeds 46 800 messages and their entries over 780
// conversations of 20 users (the searched one has 400 of them), ANALYZEs,
// captures the statements a search runs and checks that PostgreSQL plans
// every match with the GIN index on search_entries.
func TestExplainUsesIndex(t *testing.T) {
	b := testdb.Backends(t)[0]
	if b.Name != "postgres" {
		t.Skip("EXPLAIN is a PostgreSQL test")
	}
	db := storetest.Open(t, b)
	seedScale(t, db, 20, 20, 400, 60)
	var idx string
	require.NoError(t, db.SQL.QueryRow(`SELECT string_agg(indexname || ':' || i.indisvalid::text, ' ') FROM pg_indexes JOIN pg_class c ON c.relname = indexname JOIN pg_index i ON i.indexrelid = c.oid WHERE tablename = 'search_entries'`).Scan(&idx))
	t.Logf("search_entries indexes: %s", idx)
	cap := &storetest.Capture{Driver: entsql.OpenDB(dialect.Postgres, db.SQL)}
	c := store.NewClient(cap, dialect.Postgres)
	u := &viewer.Viewer{TenantID: "acme", UserID: "user0", Roles: []viewer.Role{viewer.RoleMember}}
	p, err := convsearch.Search(as(u), c, convsearch.Request{Query: "w7"})
	require.NoError(t, err)
	if p.TotalCount == 0 {
		var n int
		var tsv string
		_ = db.SQL.QueryRow(`SELECT count(*) FROM search_entries WHERE search_tokens @@ '''w7'' & ''u:acme:user0'''::tsquery`).Scan(&n)
		_ = db.SQL.QueryRow(`SELECT search_tokens::text FROM search_entries LIMIT 1`).Scan(&tsv)
		t.Fatalf("no hits; %d rows match in SQL; %q; statements %+v", n, tsv, cap.Seen())
	}
	indexes := map[string]bool{}
	for _, s := range cap.Seen() {
		if !strings.Contains(s.Query, "@@") {
			continue
		}
		rows, err := db.SQL.QueryContext(context.Background(), "EXPLAIN "+s.Query, s.Args...)
		require.NoError(t, err)
		var plan []string
		for rows.Next() {
			var line string
			require.NoError(t, rows.Scan(&line))
			plan = append(plan, line)
		}
		require.NoError(t, rows.Close())
		text := strings.Join(plan, "\n")
		t.Logf("%s\n%s", s.Query, text)
		if strings.Contains(text, "Bitmap Index Scan on search_entries_search_tokens_gin") {
			indexes[s.Query] = true
		} else {
			t.Errorf("a match does not use the GIN index:\n%s\n%s", s.Query, text)
		}
	}
	require.NotEmpty(t, indexes, "no statement matched the index")
}

// seedScale writes users × convs conversations (heavy for user0) in tenant acme with msgs
// messages each (PostgreSQL; messages by INSERT … SELECT generate_series,
// with the word w<i mod 300> and the owner's term), and ANALYZEs (and
// VACUUMs the entries).
func seedScale(t testing.TB, db *store.DB, users, convs, heavy, msgs int) {
	t.Helper()
	ctx := context.Background()
	sys := viewer.SystemJobContext(ctx, viewer.JobProvision)
	db.Client.Tenant.Create().SetID("acme").SetName("acme").SaveX(sys)
	kb := db.Client.KnowledgeBase.Create().SetTenantID("acme").SetName("kb").SetEmbeddingModel("m").SetEmbeddingDimensions(1024).SaveX(sys)
	now := time.Now()
	for u := range users {
		n := convs
		if u == 0 {
			n = heavy // the searched user is a heavy one
		}
		bulk := make([]*ent.ConversationCreate, 0, n)
		for i := range n {
			bulk = append(bulk, db.Client.Conversation.Create().SetTenantID("acme").SetUserID(fmt.Sprintf("user%d", u)).
				SetKnowledgeBaseID(kb.ID).SetTitle(fmt.Sprintf("topic w%d", (u*convs+i)%300)).
				SetExpiresAt(now.Add(time.Hour)).SetAbsoluteExpiresAt(now.Add(24*time.Hour)))
		}
		for len(bulk) > 0 {
			k := min(len(bulk), 1000) // within PostgreSQL's 65535 parameters
			db.Client.Conversation.CreateBulk(bulk[:k]...).ExecX(sys)
			bulk = bulk[k:]
		}
	}
	_, err := db.SQL.ExecContext(ctx, `INSERT INTO messages (id, tenant_id, owner_id, conversation_id, sequence_no, role, content, created_at)
SELECT gen_random_uuid(), 'acme', c.user_id, c.id, g, 'USER', 'message w' || (g % 300), now() - g * interval '1 minute'
FROM conversations c CROSS JOIN generate_series(1, $1::int) g`, msgs)
	require.NoError(t, err)
	// The entries the index hook writes for these messages (a test seeds
	// them in SQL for speed; internal/convsearch Encode is the format).
	_, err = db.SQL.ExecContext(ctx, `INSERT INTO search_entries (id, tenant_id, owner_id, conversation_id, message_id, kind, at, rank, search_tokens)
SELECT gen_random_uuid(), m.tenant_id, m.owner_id, m.conversation_id, m.id, 'MESSAGE', m.created_at,
  10000000000000000 + floor(extract(epoch FROM m.created_at) * 1000000)::bigint,
  array_to_tsvector(ARRAY[substr(m.content, 9), 'message', 'u:acme:' || m.owner_id, 't:acme'])
FROM messages m`)
	require.NoError(t, err)
	// VACUUM, not only ANALYZE, for search_entries: it moves the GIN
	// index's pending list (fastupdate) into the index, as autovacuum does
	// on a live table. A plan made while the just-inserted entries still
	// sit in the pending list may prefer a sequential scan, depending on
	// whether autoanalyze ran first: the test would flake.
	for _, stmt := range []string{`ANALYZE messages`, `ANALYZE conversations`, `VACUUM (ANALYZE) search_entries`} {
		_, err = db.SQL.ExecContext(ctx, stmt)
		require.NoError(t, err, stmt)
	}
}
