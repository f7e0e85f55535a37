package server_test

import (
	"context"
	"database/sql"
	"sync/atomic"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
	"github.com/ragchat/ragchat/internal/viewer"
)

// countedUser is the user whose statements the counting driver counts.
const countedUser = "counted"

// countingDriver counts the SQL statements run for countedUser's requests
// (background jobs and other users are not counted).
type countingDriver struct {
	dialect.Driver
	n *atomic.Int64
}

func (d countingDriver) count(ctx context.Context) {
	if v := viewer.FromContext(ctx); v != nil && v.UserID == countedUser {
		d.n.Add(1)
	}
}

func (d countingDriver) Exec(ctx context.Context, query string, args, v any) error {
	d.count(ctx)
	return d.Driver.Exec(ctx, query, args, v)
}

func (d countingDriver) Query(ctx context.Context, query string, args, v any) error {
	d.count(ctx)
	return d.Driver.Query(ctx, query, args, v)
}

func (d countingDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	tx, err := d.Driver.Tx(ctx)
	if err != nil {
		return nil, err
	}
	return countingTx{Tx: tx, d: d}, nil
}

// BeginTx starts a transaction with options (the PostgreSQL retriever
// needs it).
func (d countingDriver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	b, ok := d.Driver.(interface {
		BeginTx(context.Context, *sql.TxOptions) (dialect.Tx, error)
	})
	if !ok {
		return d.Tx(ctx)
	}
	tx, err := b.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return countingTx{Tx: tx, d: d}, nil
}

type countingTx struct {
	dialect.Tx
	d countingDriver
}

func (t countingTx) Exec(ctx context.Context, query string, args, v any) error {
	t.d.count(ctx)
	return t.Tx.Exec(ctx, query, args, v)
}

func (t countingTx) Query(ctx context.Context, query string, args, v any) error {
	t.d.count(ctx)
	return t.Tx.Query(ctx, query, args, v)
}

// ExecContext forwards raw statements (ent's ExecQuery feature).
func (t countingTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	t.d.count(ctx)
	return t.Tx.(interface {
		ExecContext(context.Context, string, ...any) (sql.Result, error)
	}).ExecContext(ctx, query, args...)
}

// QueryContext forwards raw queries (ent's ExecQuery feature).
func (t countingTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	t.d.count(ctx)
	return t.Tx.(interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	}).QueryContext(ctx, query, args...)
}

// ExecContext forwards raw statements (ent's ExecQuery feature).
func (d countingDriver) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	d.count(ctx)
	return d.Driver.(interface {
		ExecContext(context.Context, string, ...any) (sql.Result, error)
	}).ExecContext(ctx, query, args...)
}

// QueryContext forwards raw queries (ent's ExecQuery feature).
func (d countingDriver) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	d.count(ctx)
	return d.Driver.(interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	}).QueryContext(ctx, query, args...)
}

const pageQuery = `query($c: ID!, $n: Int!, $before: Cursor) { conversation(id: $c) { id title
	messages(last: $n, before: $before) { totalCount pageInfo { hasPreviousPage startCursor }
		edges { node { id sequenceNo role content
			attempt { id status answer sources { label rank available snippet documentTitle } feedback { rating reasonCodes comment } }
			attempts { id status retries { id } }
		} } } } }`

type page struct {
	Conversation struct {
		Messages struct {
			TotalCount int
			PageInfo   struct {
				HasPreviousPage bool
				StartCursor     string
			}
			Edges []struct {
				Node struct {
					SequenceNo int
					Role       string
					Attempt    *struct {
						Sources []struct {
							Available bool
							Snippet   *string
						}
						Feedback []struct{ Rating string }
					}
				}
			}
		}
	}
}

// TestMessagePageStatementsDoNotGrow loads a page of 50 messages with their
// attempts, sources (re-authorised) and feedback, and proves with a
// statement-counting driver that it costs a small constant number of
// statements: the same for 50 messages as for 6.
func TestMessagePageStatementsDoNotGrow(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			var n atomic.Int64
			h := servertest.Start(t, b, servertest.Options{
				Driver: func(d dialect.Driver) dialect.Driver { return countingDriver{Driver: d, n: &n} },
				Model:  offline.New(offline.Options{TokenDelay: -1}),
			})
			h.SetTenantSettings(t, "demo", func(s *domain.TenantSettings) { s.AskBurst = 1000 })
			owner := h.Client(t, "owner")
			conv := createConversation(t, owner)
			questions := []string{"上传文件最大是多少？", "那超过以后返回什么错误码？", "退款多久到账？", "什么是 RAG？", "How large can an uploaded file be?"}
			for i := range 25 {
				a := ask(t, owner, conv, questions[i%len(questions)])
				if s := waitDone(t, owner, a); s != "COMPLETED" {
					t.Fatalf("round %d: %s", i, s)
				}
				if i%3 == 0 {
					mustDo(t, owner, `mutation($a: ID!) { submitFeedback(input: {attemptId: $a, rating: DOWN, reasons: [INCOMPLETE], comment: "more"}) { id } }`,
						map[string]any{"a": a}, nil)
				}
			}
			// The counted user is an admin of the tenant, so it may read
			// the owner's conversation.
			counted := h.Client(t, countedUser, "admin")
			load := func(size int, before *string) (page, int64) {
				var p page
				vars := map[string]any{"c": conv, "n": size}
				if before != nil {
					vars["before"] = *before
				}
				n.Store(0)
				mustDo(t, counted, pageQuery, vars, &p)
				return p, n.Load()
			}
			big, bigCount := load(50, nil)
			small, smallCount := load(6, nil)
			t.Logf("%s: %d statements for 50 messages, %d for 6", b.Name, bigCount, smallCount)

			edges := big.Conversation.Messages.Edges
			if len(edges) != 50 || big.Conversation.Messages.TotalCount != 50 {
				t.Fatalf("page has %d of %d messages", len(edges), big.Conversation.Messages.TotalCount)
			}
			var sources, feedback int
			for i, e := range edges {
				if e.Node.SequenceNo != i+1 {
					t.Fatalf("message %d has sequence %d", i, e.Node.SequenceNo)
				}
				if a := e.Node.Attempt; a != nil {
					sources += len(a.Sources)
					feedback += len(a.Feedback)
					for _, s := range a.Sources {
						if !s.Available || s.Snippet == nil {
							t.Fatalf("source unavailable: %+v", s)
						}
					}
				}
			}
			if sources == 0 || feedback == 0 {
				t.Fatalf("page shows %d sources and %d feedback", sources, feedback)
			}
			if bigCount != smallCount {
				t.Errorf("statements grow with the page: %d for 50 messages, %d for 6", bigCount, smallCount)
			}
			if bigCount > 12 {
				t.Errorf("%d statements for one page; want a small constant (<= 12)", bigCount)
			}

			// Keyset paging backwards: the latest 6, then the 6 before.
			se := small.Conversation.Messages.Edges
			if len(se) != 6 || se[0].Node.SequenceNo != 45 || !small.Conversation.Messages.PageInfo.HasPreviousPage {
				t.Fatalf("last 6: %+v", small.Conversation.Messages)
			}
			prev, _ := load(6, &small.Conversation.Messages.PageInfo.StartCursor)
			pe := prev.Conversation.Messages.Edges
			if len(pe) != 6 || pe[0].Node.SequenceNo != 39 || pe[5].Node.SequenceNo != 44 {
				t.Fatalf("the 6 before: %+v", pe)
			}
		})
	}
}
