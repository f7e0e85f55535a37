package server_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
	"github.com/ragchat/ragchat/internal/viewer"
)

// seedMessages writes a conversation of n messages owned by user of the
// demo tenant, in bulk, as the provisioning job.
func seedMessages(b testing.TB, h *servertest.Harness, user string, n int) uuid.UUID {
	ctx := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	kb, err := h.DB.Client.KnowledgeBase.Query().Where(knowledgebase.TenantID("demo")).First(ctx)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	conv, err := h.DB.Client.Conversation.Create().SetTenantID("demo").SetUserID(user).SetKnowledgeBaseID(kb.ID).
		SetLastSequenceNo(int64(n)).SetExpiresAt(now.Add(time.Hour)).SetAbsoluteExpiresAt(now.Add(2 * time.Hour)).Save(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for from := 1; from <= n; from += 500 {
		var bulk []*ent.MessageCreate
		for seq := from; seq < from+500 && seq <= n; seq++ {
			role := message.RoleUSER
			if seq%2 == 0 {
				role = message.RoleASSISTANT
			}
			bulk = append(bulk, h.DB.Client.Message.Create().SetTenantID("demo").SetOwnerID(user).SetConversationID(conv.ID).
				SetSequenceNo(int64(seq)).SetRole(role).SetContent(fmt.Sprintf("message %d: uploads are limited to 20 MB per file; larger files get HTTP 413.", seq)))
		}
		if err := h.DB.Client.Message.CreateBulk(bulk...).Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	// The planner's statistics, as autovacuum keeps them for a table that
	// grew.
	if _, err := h.DB.SQL.ExecContext(ctx, "ANALYZE messages"); err != nil {
		b.Fatal(err)
	}
	return conv.ID
}

// BenchmarkMessagePage loads the latest 50 messages of a 10,000-message
// conversation through the whole in-process handler over HTTP, and runs the
// same keyset query as raw SQL, on each backend. Besides time and
// allocations it reports the process's CPU time per page (cpu-ns/op, user
// and system: client and server, the database's own excluded), which a
// busy machine disturbs far less than wall-clock time.
func BenchmarkMessagePage(b *testing.B) {
	const query = `query($c: ID!) { conversation(id: $c) { messages(last: 50) {
		edges { node { id sequenceNo role content createdAt } } pageInfo { hasPreviousPage startCursor } } } }`
	for _, be := range testdb.Backends(b) {
		h := servertest.Start(b, be, servertest.Options{})
		conv := seedMessages(b, h, "pager", 10000)
		c := h.Client(b, "pager")
		b.Run(be.Name+"/graphql", func(b *testing.B) {
			cpu := processCPU()
			for b.Loop() {
				if r, err := c.Do(context.Background(), query, map[string]any{"c": conv.String()}); err != nil || len(r.Errors) > 0 {
					b.Fatal(err, r)
				}
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
		raw := `SELECT id, sequence_no, role, content, created_at FROM messages WHERE tenant_id = ? AND owner_id = ? AND conversation_id = ? ORDER BY sequence_no DESC LIMIT 51`
		args := []any{"demo", "pager", conv}
		if be.Dialect == dialect.Postgres {
			raw = `SELECT id, sequence_no, role, content, created_at FROM messages WHERE tenant_id = $1 AND owner_id = $2 AND conversation_id = $3 ORDER BY sequence_no DESC LIMIT 51`
		}
		b.Run(be.Name+"/raw-sql", func(b *testing.B) {
			cpu := processCPU()
			defer func() { b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op") }()
			for b.Loop() {
				rows, err := h.DB.SQL.QueryContext(context.Background(), raw, args...)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
					var (
						id           uuid.UUID
						seq          int64
						role, conten string
						at           time.Time
					)
					if err := rows.Scan(&id, &seq, &role, &conten, &at); err != nil {
						b.Fatal(err)
					}
				}
				rows.Close()
			}
		})
	}
}

// processCPU is this process's user and system CPU time, in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
