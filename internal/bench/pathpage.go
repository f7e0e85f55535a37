package bench

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// pathPageQuery is the page a chat screen opens a branched conversation
// with: the last 50 messages of the current branch, each with its
// siblings (for "‹ 2 / 3 ›").
const pathPageQuery = `query($c: ID!) { conversation(id: $c) { currentPath(last: 50) {
	totalCount pageInfo { hasPreviousPage startCursor }
	edges { node { id parentId depth role content createdAt siblings { ids index count } } } } } }`

// pathPageSizes are the conversations the current path page is measured
// on: (messages, branches).
var pathPageSizes = []struct{ messages, branches int }{{100, 20}, {10000, 20}}

// benchPathPage measures the current path page (pathPageQuery) on a
// 100-message and a 10,000-message conversation of 20 branches each:
// p50 and p99 of o.pageRuns sequential loads over HTTP, and the
// statements of one load from the server's per-operation statement
// histogram (queries). Both should be flat: the page is a bounded walk up
// from the leaf, whatever the conversation's length.
func benchPathPage(ctx context.Context, env *benchEnv, o benchOptions, w io.Writer) error {
	const user = "pathpager"
	c := env.client(user)
	type row struct {
		messages, branches int
		p50, p99           time.Duration
		stmts              int
	}
	var rows []row
	for _, size := range pathPageSizes {
		conv, err := seedBranchedConversation(ctx, env.db, user, size.messages, size.branches)
		if err != nil {
			return err
		}
		load := func() error {
			r, err := c.Do(ctx, pathPageQuery, map[string]any{"c": conv.String()})
			if err != nil || len(r.Errors) > 0 {
				return fmt.Errorf("path page query: %v %v", err, r)
			}
			return nil
		}
		for range 10 { // warm up
			if err := load(); err != nil {
				return err
			}
		}
		before, err := settledMetrics(ctx, env)
		if err != nil {
			return err
		}
		if err := load(); err != nil {
			return err
		}
		after, err := settledMetrics(ctx, env)
		if err != nil {
			return err
		}
		stmts := int(after[opStatements("sum", "query")] - before[opStatements("sum", "query")] + 0.5)
		var ds []time.Duration
		for range o.pageRuns {
			t0 := time.Now()
			if err := load(); err != nil {
				return err
			}
			ds = append(ds, time.Since(t0))
		}
		rows = append(rows, row{size.messages, size.branches, pct(ds, 50), pct(ds, 99), stmts})
	}
	env.results.pathPage = map[int]time.Duration{}
	for _, r := range rows {
		env.results.pathPage[r.messages] = r.p50
	}
	fmt.Fprintf(w, "### The current path page of a branched conversation\n\n")
	fmt.Fprintf(w, "`currentPath(last: 50)` with each message's siblings, as the owner, %d sequential loads per conversation over HTTP; statements of one load from the server's per-operation histogram. The floor is this run's `SELECT 1`.\n\n", o.pageRuns)
	fmt.Fprintln(w, "| conversation | p50 | p99 | statements | floor multiple (p50) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %d messages, %d branches | %s | %s | %d | %s |\n", r.messages, r.branches, ms(r.p50), ms(r.p99), r.stmts, env.results.timeMultiple(r.p50))
	}
	fmt.Fprintln(w)
	return nil
}

// seedBranchedConversation writes a conversation of n messages owned by
// user directly (as the provisioning job): a main path, the current
// branch, and branches side branches of n/50 messages (at least 2), each
// starting as a sibling of a main-path message, spread along the path.
// Sequence numbers follow creation order (the main path, then the
// branches), so they grow with depth along every path.
func seedBranchedConversation(ctx context.Context, db *store.DB, user string, n, branches int) (uuid.UUID, error) {
	sys := viewer.SystemJobContext(ctx, viewer.JobProvision)
	kb, err := db.Client.KnowledgeBase.Query().Where(knowledgebase.TenantID(benchTenant)).First(sys)
	if err != nil {
		return uuid.Nil, fmt.Errorf("bench knowledge base: %w", err)
	}
	side := max(2, n/50)
	mainLen := n - branches*side
	if mainLen < 2*branches {
		return uuid.Nil, fmt.Errorf("%d messages are too few for %d branches", n, branches)
	}
	now := time.Now()
	conv, err := db.Client.Conversation.Create().
		SetTenantID(benchTenant).SetUserID(user).SetKnowledgeBaseID(kb.ID).SetTitle("branched conversation").
		SetLastSequenceNo(int64(n)).SetExpiresAt(now.Add(24 * time.Hour)).SetAbsoluteExpiresAt(now.Add(48 * time.Hour)).
		Save(sys)
	if err != nil {
		return uuid.Nil, err
	}
	type node struct {
		id     uuid.UUID
		parent *uuid.UUID
		depth  int
	}
	nodes := make([]node, 0, n)
	var parent *uuid.UUID
	for d := range mainLen {
		id := uuid.New()
		nodes = append(nodes, node{id, parent, d})
		parent = &id
	}
	leaf := nodes[mainLen-1].id
	for b := range branches {
		at := 1 + b*(mainLen-1)/branches
		p := nodes[at-1].id
		parent := &p
		for d := at; d < at+side; d++ {
			id := uuid.New()
			nodes = append(nodes, node{id, parent, d})
			parent = &id
		}
	}
	const batch = 500
	for from := 0; from < len(nodes); from += batch {
		var builders []*ent.MessageCreate
		for i := from; i < from+batch && i < len(nodes); i++ {
			nd, seq := nodes[i], i+1
			role, content := message.RoleUSER, fmt.Sprintf("Question %d: how large can an uploaded file be in section %d?", seq, seq%20)
			if nd.depth%2 == 1 {
				role, content = message.RoleASSISTANT, benchAnswer(400)
			}
			builders = append(builders, db.Client.Message.Create().SetID(nd.id).
				SetTenantID(benchTenant).SetOwnerID(user).SetConversationID(conv.ID).
				SetNillableParentID(nd.parent).SetDepth(nd.depth).
				SetSequenceNo(int64(seq)).SetRole(role).SetContent(content).
				SetCreatedAt(now.Add(time.Duration(seq-n)*time.Second)))
		}
		if err := db.Client.Message.CreateBulk(builders...).Exec(sys); err != nil {
			return uuid.Nil, err
		}
	}
	if err := db.Client.Conversation.UpdateOneID(conv.ID).SetCurrentLeafID(leaf).Exec(sys); err != nil {
		return uuid.Nil, err
	}
	if _, err := db.SQL.ExecContext(ctx, "ANALYZE messages"); err != nil {
		return uuid.Nil, err
	}
	return conv.ID, nil
}
