package chat_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// txLog records, per statement sent through a txTraceDriver, whether it
// ran in a transaction ("tx"), outside one ("autocommit"), or began or
// ended one ("BEGIN", "COMMIT", "ROLLBACK").
type txLog struct {
	mu     sync.Mutex
	events []string
}

func (l *txLog) add(e string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

// take returns the events since the last take.
func (l *txLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.events
	l.events = nil
	return e
}

// txTraceDriver is an Ent driver that records in log how each statement
// relates to transactions.
type txTraceDriver struct {
	dialect.Driver
	log *txLog
}

// tracedDB returns raw with every Ent statement recorded in a txLog.
func tracedDB(raw *store.DB) (*store.DB, *txLog) {
	l := &txLog{}
	drv := txTraceDriver{Driver: entsql.OpenDB(raw.Dialect, raw.SQL), log: l}
	return &store.DB{Client: store.NewClient(drv, raw.Dialect), SQL: raw.SQL, Dialect: raw.Dialect}, l
}

func (d txTraceDriver) Exec(ctx context.Context, q string, args, v any) error {
	d.log.add("autocommit")
	return d.Driver.Exec(ctx, q, args, v)
}

func (d txTraceDriver) Query(ctx context.Context, q string, args, v any) error {
	d.log.add("autocommit")
	return d.Driver.Query(ctx, q, args, v)
}

func (d txTraceDriver) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	d.log.add("autocommit")
	return d.Driver.(execQuerier).ExecContext(ctx, q, args...)
}

func (d txTraceDriver) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	d.log.add("autocommit")
	return d.Driver.(execQuerier).QueryContext(ctx, q, args...)
}

func (d txTraceDriver) Tx(ctx context.Context) (dialect.Tx, error) { return d.BeginTx(ctx, nil) }

func (d txTraceDriver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	d.log.add("BEGIN")
	tx, err := d.Driver.(interface {
		BeginTx(context.Context, *sql.TxOptions) (dialect.Tx, error)
	}).BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return txTraceTx{Tx: tx, log: d.log}, nil
}

type txTraceTx struct {
	dialect.Tx
	log *txLog
}

func (t txTraceTx) Exec(ctx context.Context, q string, args, v any) error {
	t.log.add("tx")
	return t.Tx.Exec(ctx, q, args, v)
}

func (t txTraceTx) Query(ctx context.Context, q string, args, v any) error {
	t.log.add("tx")
	return t.Tx.Query(ctx, q, args, v)
}

func (t txTraceTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	t.log.add("tx")
	return t.Tx.(execQuerier).ExecContext(ctx, q, args...)
}

func (t txTraceTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	t.log.add("tx")
	return t.Tx.(execQuerier).QueryContext(ctx, q, args...)
}

func (t txTraceTx) Commit() error {
	t.log.add("COMMIT")
	return t.Tx.Commit()
}

func (t txTraceTx) Rollback() error {
	t.log.add("ROLLBACK")
	return t.Tx.Rollback()
}

// inOneTx returns BEGIN, n statements in the transaction, then end.
func inOneTx(n int, end string) []string {
	e := []string{"BEGIN"}
	for range n {
		e = append(e, "tx")
	}
	return append(e, end)
}

// askTxStatements is the number of statements of an ask call between its
// BEGIN and COMMIT (docs/BENCHMARKS.md, "Statements per ask"): the read,
// then one data-modifying statement on PostgreSQL (which also writes the
// message's search entry); the rate upsert, the sequence, the message, its
// search entry and the attempt on SQLite.
var askTxStatements = map[string]int{dialect.Postgres: 2, dialect.SQLite: 6}

// firstAskTxStatements is askTxStatements for the ask that sets the
// conversation's title from its question: on SQLite the title's search
// entry is one more statement; on PostgreSQL it is in the one statement.
var firstAskTxStatements = map[string]int{dialect.Postgres: 2, dialect.SQLite: 7}

// ratesTAT returns the stored theoretical arrival times of every ask-rate
// bucket, to tell whether an ask was charged.
func ratesTAT(t *testing.T, raw *store.DB) []int64 {
	t.Helper()
	rows, err := raw.SQL.Query(`SELECT tat FROM ask_rates ORDER BY user_id`)
	require.NoError(t, err)
	defer rows.Close()
	var tats []int64
	for rows.Next() {
		var tat int64
		require.NoError(t, rows.Scan(&tat))
		tats = append(tats, tat)
	}
	require.NoError(t, rows.Err())
	return tats
}

// TestAskIsOneTransaction: every statement of an ask call runs in one
// transaction: BEGIN, the read, the writes (one statement on PostgreSQL),
// COMMIT. A busy conversation and a replayed key are answered from the
// transaction's read and end it with a ROLLBACK, charging no rate and
// writing nothing. Before, the ask call read the conversation and the
// attempts outside its transaction (8 statements, 2 in autocommit).
func TestAskIsOneTransaction(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, raw *store.DB) {
		db, log := tracedDB(raw)
		limiter := func(d *chat.Deps) { d.AskLimiter = askrate.NewDBLimiter(db, nil) }
		e := newEnvDeps(t, db, nil, limiter, func(c *chat.Config, _ *domain.TenantSettings) { c.CheckpointInterval = time.Hour })
		conv := e.conversation(t, alice)
		e.ask(t, alice, conv.ID, "上传文件最大是多少？") // the first ask also sets the title
		chat.WaitIdle(e.eng)

		release := chat.HoldRuns(e.eng)
		log.take()
		key := uuid.NewString()
		r, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: key, Question: "那超过以后返回什么错误码？"})
		require.NoError(t, err)
		require.Equal(t, inOneTx(askTxStatements[raw.Dialect], "COMMIT"), log.take(), "the ask call")

		seq := e.db.Client.Conversation.GetX(as(alice), conv.ID).LastSequenceNo
		tats := ratesTAT(t, raw)
		log.take()
		_, err = e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: "那退款呢？"})
		require.Equal(t, domain.CodeConversationBusy, code(err))
		require.Equal(t, inOneTx(1, "ROLLBACK"), log.take(), "a busy conversation")

		again, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: key, Question: "那超过以后返回什么错误码？"})
		require.NoError(t, err)
		require.True(t, again.Deduplicated)
		require.Equal(t, r.Attempt.ID, again.Attempt.ID)
		require.Equal(t, inOneTx(3, "ROLLBACK"), log.take(), "a replay: the read, the message, the attempt")

		require.Equal(t, seq, e.db.Client.Conversation.GetX(as(alice), conv.ID).LastSequenceNo, "nothing written")
		require.Equal(t, tats, ratesTAT(t, raw), "no rate charged")
		release()
		e.wait(t, alice, r.Attempt.ID, 0)
		chat.WaitIdle(e.eng)
	})
}

// normalized is v as JSON (so without Ent's client) with its timestamps in
// UTC, rounded to the database's microseconds, and the named keys left out.
func normalized(t *testing.T, v any, drop ...string) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	for k, x := range m {
		if s, ok := x.(string); ok {
			if ts, err := time.Parse(time.RFC3339Nano, s); err == nil {
				m[k] = ts.UTC().Round(time.Microsecond).Format(time.RFC3339Nano)
			}
		}
	}
	for _, k := range drop {
		delete(m, k)
	}
	delete(m, "edges")
	return m
}

// TestAskRowsAreEntRows: the message and attempt that an ask writes (in
// one statement on PostgreSQL, from the specs of Ent's Prepare; with Ent's
// own create on SQLite) are alike for every ask of a client, the first
// included (every column, defaults and tenant included, alike but for ids,
// keys, times and trace ids), the entities Ask returns equal the stored
// rows, and their edges can be followed like those of any entity Ent
// returns.
func TestAskRowsAreEntRows(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, raw *store.DB) {
		db, _ := countedDB(raw) // a client of its own, which has made no ask yet
		limiter := func(d *chat.Deps) { d.AskLimiter = askrate.NewDBLimiter(db, nil) }
		e := newEnvDeps(t, db, nil, limiter, func(c *chat.Config, _ *domain.TenantSettings) { c.CheckpointInterval = time.Hour })
		release := chat.HoldRuns(e.eng)
		var results []*chat.AskResult
		for range 2 { // a client's first ask and its second
			conv := e.conversation(t, alice)
			r, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: "上传文件最大是多少？"})
			require.NoError(t, err)
			results = append(results, r)
		}
		ctx := as(alice)
		perRow := []string{"id", "conversation_id", "user_message_id", "client_message_id", "client_request_id",
			"created_at", "updated_at", "started_at", "lease_expires_at", "trace_id"}
		var msgs, atts []map[string]any
		for _, r := range results {
			msg := e.db.Client.Message.GetX(ctx, r.UserMessage.ID)
			att := e.db.Client.Attempt.GetX(ctx, r.Attempt.ID)
			require.Equal(t, normalized(t, msg), normalized(t, r.UserMessage), "the message returned is the one stored")
			require.Equal(t, normalized(t, att), normalized(t, r.Attempt), "the attempt returned is the one stored")
			msgs = append(msgs, normalized(t, msg, perRow...))
			atts = append(atts, normalized(t, att, perRow...))

			require.Equal(t, r.UserMessage.ConversationID, r.Attempt.QueryConversation().OnlyX(ctx).ID)
			require.Equal(t, r.Attempt.ID, r.UserMessage.QueryAttempts().OnlyX(ctx).ID)
			require.Equal(t, r.UserMessage.ID, r.Attempt.QueryUserMessage().OnlyX(ctx).ID)
		}
		require.Equal(t, msgs[0], msgs[1], "messages")
		require.Equal(t, atts[0], atts[1], "attempts")
		for _, r := range results {
			release()
			e.wait(t, alice, r.Attempt.ID, 0)
		}
		chat.WaitIdle(e.eng)
	})
}
