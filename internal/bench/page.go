package bench

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// pageQuery is the GraphQL page the client of a chat screen loads.
const pageQuery = `query($c: ID!) { conversation(id: $c) { messages(last: 50) {
	edges { node { id sequenceNo role content createdAt } } pageInfo { hasPreviousPage startCursor } } } }`

// benchPage compares loading the latest 50 messages of a conversation of
// o.messages messages over GraphQL (HTTP, auth, privacy filters, keyset
// pagination, JSON) with running the equivalent SQL directly, then
// measures the current path page of branched conversations
// (benchPathPage).
func benchPage(ctx context.Context, env *benchEnv, o benchOptions, w io.Writer) error {
	const user = "pager"
	seedStart := time.Now()
	conv, err := seedConversation(ctx, env.db, user, o.messages)
	if err != nil {
		return err
	}
	seeded := time.Since(seedStart)
	c := env.client(user)
	for range 10 { // warm up
		if r, err := c.Do(ctx, pageQuery, map[string]any{"c": conv.String()}); err != nil || len(r.Errors) > 0 {
			return fmt.Errorf("page query: %v %v", err, r)
		}
	}
	var gql, raw []time.Duration
	for range o.pageRuns {
		t0 := time.Now()
		r, err := c.Do(ctx, pageQuery, map[string]any{"c": conv.String()})
		if err != nil || len(r.Errors) > 0 {
			return fmt.Errorf("page query: %v %v", err, r)
		}
		gql = append(gql, time.Since(t0))
	}
	q := `SELECT id, sequence_no, role, content, created_at FROM messages
		WHERE tenant_id = ? AND owner_id = ? AND conversation_id = ? ORDER BY sequence_no DESC LIMIT 51`
	if env.db.Dialect == dialect.Postgres {
		q = strings.NewReplacer("tenant_id = ?", "tenant_id = $1", "owner_id = ?", "owner_id = $2", "conversation_id = ?", "conversation_id = $3").Replace(q)
	}
	for i := range o.pageRuns + 10 {
		t0 := time.Now()
		if err := scanPage(ctx, env.db.SQL, q, conv); err != nil {
			return err
		}
		if i >= 10 {
			raw = append(raw, time.Since(t0))
		}
	}
	env.results.pageOK, env.results.pageGQL, env.results.raw, env.results.messages = true, pct(gql, 50), pct(raw, 50), o.messages
	fmt.Fprintf(w, "### A page of 50 messages from a %d-message conversation\n\n", o.messages)
	fmt.Fprintf(w, "Seeded in %.1f s (ANALYZE included). The latest page (`messages(last: 50)`, keyset on sequence_no) as the owner, %d sequential loads. GraphQL is measured at the client over HTTP (auth, conversation load, privacy filters, pagination, JSON); raw SQL is the same keyset query through database/sql in the benchmark process.\n\n", seeded.Seconds(), o.pageRuns)
	fmt.Fprintln(w, "| | p50 | p99 |")
	fmt.Fprintln(w, "|---|---:|---:|")
	fmt.Fprintf(w, "| GraphQL over HTTP | %s | %s |\n", ms(pct(gql, 50)), ms(pct(gql, 99)))
	fmt.Fprintf(w, "| raw SQL | %s | %s |\n\n", ms(pct(raw, 50)), ms(pct(raw, 99)))
	if o.profileDir != "" {
		load := func() error {
			r, err := c.Do(ctx, pageQuery, map[string]any{"c": conv.String()})
			if err == nil && len(r.Errors) > 0 {
				err = fmt.Errorf("page query: %v", r.Errors)
			}
			return err
		}
		if err := profilePages(ctx, env, o, load, w); err != nil {
			return err
		}
	}
	return benchPathPage(ctx, env, o, w)
}

// scanPage runs the raw page query and reads every row.
func scanPage(ctx context.Context, db *sql.DB, q string, conv uuid.UUID) error {
	rows, err := db.QueryContext(ctx, q, benchTenant, "pager", conv)
	if err != nil {
		return err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var (
			id      uuid.UUID
			seq     int64
			role    string
			content string
			at      time.Time
		)
		if err := rows.Scan(&id, &seq, &role, &content, &at); err != nil {
			return err
		}
		n++
	}
	if n != 51 {
		return fmt.Errorf("raw page returned %d rows", n)
	}
	return rows.Err()
}

// analyseFrom is the least seeding that seedConversation analyses.
const analyseFrom = 1000

// seedConversation writes a conversation of n messages owned by user
// directly (as the provisioning job), in bulk.
func seedConversation(ctx context.Context, db *store.DB, user string, n int) (uuid.UUID, error) {
	sys := viewer.SystemJobContext(ctx, viewer.JobProvision)
	kb, err := db.Client.KnowledgeBase.Query().Where(knowledgebase.TenantID(benchTenant)).First(sys)
	if err != nil {
		return uuid.Nil, fmt.Errorf("bench knowledge base: %w", err)
	}
	now := time.Now()
	conv, err := db.Client.Conversation.Create().
		SetTenantID(benchTenant).SetUserID(user).SetKnowledgeBaseID(kb.ID).SetTitle("long conversation").
		SetLastSequenceNo(int64(n)).SetExpiresAt(now.Add(24 * time.Hour)).SetAbsoluteExpiresAt(now.Add(48 * time.Hour)).
		Save(sys)
	if err != nil {
		return uuid.Nil, err
	}
	if db.Dialect == dialect.Postgres && n > 2 {
		err = seedBySeries(ctx, sys, db, conv.ID, user, n, now)
	} else {
		err = seedByBulk(sys, db, conv.ID, user, n, now)
	}
	if err != nil {
		return uuid.Nil, err
	}
	// Refresh the planner's statistics of a large seeding, as autovacuum
	// does for a table that grew: measure the steady state, not a table
	// the planner has never seen. The floor's two messages are not
	// analysed: statistics of a two-message table would steer every later
	// part's plans (on SQLite, which no deployment analyses, for good:
	// they replace the modelled statistics of internal/store).
	if n >= analyseFrom {
		if _, err := db.SQL.ExecContext(ctx, "ANALYZE messages"); err != nil {
			return uuid.Nil, err
		}
	}
	return conv.ID, nil
}

// seedMessage is the builder of the bench conversation's message seq (of
// n): odd numbers are USER questions, even ones ASSISTANT answers.
func seedMessage(db *store.DB, conv uuid.UUID, user string, seq, n int, now time.Time) *ent.MessageCreate {
	role, content := message.RoleUSER, fmt.Sprintf("Question %d: how large can an uploaded file be in section %d?", seq, seq%20)
	if seq%2 == 0 {
		role = message.RoleASSISTANT
		content = benchAnswer(400)
	}
	return db.Client.Message.Create().
		SetTenantID(benchTenant).SetOwnerID(user).SetConversationID(conv).
		SetSequenceNo(int64(seq)).SetRole(role).SetContent(content).
		SetCreatedAt(now.Add(time.Duration(seq-n) * time.Second))
}

// seedByBulk writes the conversation's n messages through Ent's bulk
// create, 500 a statement.
func seedByBulk(sys context.Context, db *store.DB, conv uuid.UUID, user string, n int, now time.Time) error {
	const batch = 500
	for lo := 1; lo <= n; lo += batch {
		var builders []*ent.MessageCreate
		for seq := lo; seq < lo+batch && seq <= n; seq++ {
			builders = append(builders, seedMessage(db, conv, user, seq, n, now))
		}
		if err := db.Client.Message.CreateBulk(builders...).Exec(sys); err != nil {
			return err
		}
	}
	return nil
}

// seedBySeries writes a large conversation on PostgreSQL in one statement:
// messages 1 (a question) and 2 (an answer) go through Ent, with every
// default the store fills in, and messages 3..n are copies of them made by
// INSERT … SELECT over generate_series, so that a million rows take
// seconds rather than thousands of bulk statements. Every column of
// message.Columns is copied from the template row except the id (a new
// random UUID), the sequence number, the question's text and the creation
// time (one second apart, the last message now).
func seedBySeries(ctx, sys context.Context, db *store.DB, conv uuid.UUID, user string, n int, now time.Time) error {
	first, err := db.Client.Message.CreateBulk(seedMessage(db, conv, user, 1, n, now), seedMessage(db, conv, user, 2, n, now)).Save(sys)
	if err != nil {
		return err
	}
	exprs := make([]string, len(message.Columns))
	for i, col := range message.Columns {
		switch col {
		case message.FieldID:
			exprs[i] = "gen_random_uuid()"
		case message.FieldSequenceNo:
			exprs[i] = "g"
		case message.FieldContent:
			exprs[i] = "CASE WHEN g % 2 = 0 THEN t.content ELSE format('Question %s: how large can an uploaded file be in section %s?', g, g % 20) END"
		case message.FieldCreatedAt:
			exprs[i] = "$3::timestamptz + (g - $4) * interval '1 second'"
		default:
			exprs[i] = "t." + col
		}
	}
	q := fmt.Sprintf(`INSERT INTO %s (%s) SELECT %s FROM generate_series(3, $4::bigint) AS g
		JOIN %s t ON t.id = CASE WHEN g %% 2 = 0 THEN $2::uuid ELSE $1::uuid END`,
		message.Table, strings.Join(message.Columns, ", "), strings.Join(exprs, ", "), message.Table)
	_, err = db.SQL.ExecContext(ctx, q, first[0].ID, first[1].ID, now, n)
	return err
}
