package chat_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/testdb"
)

// notSaved is the log message of each failed completion write.
const notSaved = "answer not saved yet"

// events collects a subscription's events as they arrive.
type events struct {
	ch   <-chan chat.AttemptEvent
	seen []chat.AttemptEvent
}

// drain takes the events that have arrived, without waiting.
func (ev *events) drain() {
	for {
		select {
		case x, ok := <-ev.ch:
			if !ok {
				return
			}
			ev.seen = append(ev.seen, x)
		default:
			return
		}
	}
}

// rest waits for the stream's end.
func (ev *events) rest() {
	for x := range ev.ch {
		ev.seen = append(ev.seen, x)
	}
}

func (ev *events) terminal() *chat.AttemptEvent {
	for i := range ev.seen {
		if k := ev.seen[i].Kind; k == chat.EventCompleted || k == chat.EventFailed {
			return &ev.seen[i]
		}
	}
	return nil
}

func (ev *events) text() string {
	s := ""
	for _, x := range ev.seen {
		if x.Kind == chat.EventDelta {
			s += x.Text
		}
	}
	return s
}

// TestAnswerSurvivesDatabaseOutage runs on a private PostgreSQL cluster
// that the test stops and starts again.
//
//   - An answer that finishes while PostgreSQL is down is kept in memory and
//     its save retried; the subscriber gets no terminal event while the
//     database is down, and the final text with COMPLETED once the answer
//     is durable.
//   - A reaper pass right after a failed one reaps nothing (holders could
//     not renew during the outage); the next pass does.
//   - When the outage outlasts CompletionRetryTimeout, the subscriber gets
//     FAILED(INTERRUPTED) at once, while the database is still down; the
//     reaper fixes the row once it is back.
//
// SQLite has no outage of its own; TestDatabaseFailureMidFlow covers the
// bound on both backends with a failing driver.
func TestAnswerSurvivesDatabaseOutage(t *testing.T) {
	t.Run("postgres", testAnswerSurvivesDatabaseOutage)
}

func testAnswerSurvivesDatabaseOutage(t *testing.T) {
	cluster := testdb.StartCluster(t)
	db := storetest.Open(t, testdb.Backend{Name: "postgres", DSN: cluster.Database()})
	e := newEnv(t, db)
	run := e.newInstance(t, chat.Config{InstanceID: "runner"})
	reaper := e.newInstance(t, chat.Config{InstanceID: "reaper"})
	ctx, cancel := context.WithTimeout(as(alice), 2*time.Minute) // hang guard
	defer cancel()
	conv, err := run.eng.CreateConversation(as(alice), chat.CreateConversationInput{})
	require.NoError(t, err)
	baseline := goroutines()
	defer func() {
		for _, eng := range []*chat.Engine{e.eng, run.eng, reaper.eng} {
			chat.WaitIdle(eng)
		}
		assertGoroutinesBack(t, baseline)
	}()

	t.Run("finishedAnswerIsSavedAfterTheOutage", func(t *testing.T) {
		e.model.hold()
		calls := e.model.chatCalls()
		res, err := run.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: "k1", Question: "上传文件最大是多少？"})
		require.NoError(t, err)
		ch, err := run.eng.SubscribeAttempt(ctx, res.Attempt.ID, 0)
		require.NoError(t, err)
		sub := &events{ch: ch}
		require.Eventually(t, func() bool { return e.model.chatCalls() == calls+1 }, time.Minute, 5*time.Millisecond)

		cluster.Stop()
		e.model.release() // the answer finishes while PostgreSQL is down
		require.Eventually(t, func() bool { return run.logs.count(notSaved) >= 3 }, time.Minute, 5*time.Millisecond,
			"the completion write is retried while the database is down")
		sub.drain()
		require.Nil(t, sub.terminal(), "no terminal event before the answer is durable")
		_, err = reaper.eng.ReapOnce(context.Background())
		require.Error(t, err, "the reaper cannot read the stopped database")

		cluster.Start()
		sub.rest()
		require.NoError(t, ctx.Err())
		last := sub.terminal()
		require.NotNil(t, last)
		require.Equal(t, chat.EventCompleted, last.Kind)
		a := db.Client.Attempt.GetX(as(alice), res.Attempt.ID)
		assert.Equal(t, attempt.StatusCOMPLETED, a.Status)
		assert.Equal(t, a.Answer, sub.text(), "the subscriber got the whole answer")
		assert.NotEmpty(t, a.Answer)
		n := db.Client.Message.Query().Where(message.ConversationID(conv.ID), message.RoleEQ(message.RoleASSISTANT)).CountX(as(alice))
		assert.Equal(t, 1, n, "the assistant message is saved with the attempt")
		n, err = reaper.eng.ReapOnce(context.Background())
		require.NoError(t, err)
		assert.Zero(t, n)
	})

	t.Run("reaperWaitsOnePassAfterAnOutage", func(t *testing.T) {
		crashed := crashedAttempt(t, e, "dead-instance")
		reaper.clock.advance(time.Hour) // every lease looks expired
		defer reaper.clock.advance(-time.Hour)
		cluster.Stop()
		_, err := reaper.eng.ReapOnce(context.Background())
		require.Error(t, err)
		cluster.Start()
		n, err := reaper.eng.ReapOnce(context.Background())
		require.NoError(t, err)
		assert.Zero(t, n, "the first pass after an outage gives holders a chance to renew")
		n, err = reaper.eng.ReapOnce(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		a := db.Client.Attempt.GetX(as(alice), crashed)
		assert.Equal(t, string(domain.FailureInterrupted), *a.FailureCode)
	})

	t.Run("outageLongerThanTheBoundFailsAtOnce", func(t *testing.T) {
		short := e.newInstance(t, chat.Config{InstanceID: "short", CompletionRetryTimeout: 200 * time.Millisecond})
		e.model.hold()
		calls := e.model.chatCalls()
		res, err := short.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: "k2", Question: "退款多久到账？"})
		require.NoError(t, err)
		ch, err := short.eng.SubscribeAttempt(ctx, res.Attempt.ID, 0)
		require.NoError(t, err)
		sub := &events{ch: ch}
		require.Eventually(t, func() bool { return e.model.chatCalls() == calls+1 }, time.Minute, 5*time.Millisecond)

		cluster.Stop()
		e.model.release()
		sub.rest() // ends while the database is still down
		require.NoError(t, ctx.Err())
		last := sub.terminal()
		require.NotNil(t, last)
		assert.Equal(t, chat.EventFailed, last.Kind)
		assert.Equal(t, domain.FailureInterrupted, last.FailureCode)
		assert.Positive(t, short.logs.count(notSaved))

		cluster.Start()
		a := db.Client.Attempt.GetX(as(alice), res.Attempt.ID)
		assert.Equal(t, attempt.StatusPENDING, a.Status, "the FAILED write failed too")
		reaper.clock.advance(time.Hour)
		defer reaper.clock.advance(-time.Hour)
		n, err := reaper.eng.ReapOnce(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, n, "the reaper fixes the row")
		a = db.Client.Attempt.GetX(as(alice), res.Attempt.ID)
		assert.Equal(t, string(domain.FailureInterrupted), *a.FailureCode)
		n = db.Client.Message.Query().Where(message.ConversationID(conv.ID), message.RoleEQ(message.RoleASSISTANT)).CountX(as(alice))
		assert.Equal(t, 1, n, "no assistant message for the failed attempt")
	})
}

// crashedAttempt leaves what a crashed instance leaves behind: a user
// message and a PENDING attempt leased by owner, in a new conversation.
func crashedAttempt(t *testing.T, e *env, owner string) uuid.UUID {
	t.Helper()
	ctx := as(alice)
	conv := e.conversation(t, alice)
	e.db.Client.Conversation.UpdateOneID(conv.ID).AddLastSequenceNo(1).ExecX(ctx)
	msg := e.db.Client.Message.Create().SetConversationID(conv.ID).SetOwnerID("alice").SetSequenceNo(1).
		SetRole(message.RoleUSER).SetContent("上传文件最大是多少？").SetClientMessageID("lost").SaveX(ctx)
	a := e.db.Client.Attempt.Create().SetConversationID(conv.ID).SetOwnerID("alice").
		SetUserMessageID(msg.ID).SetClientRequestID("lost").SetOriginalQuestion(msg.Content).
		SetStartedAt(time.Now()).SetLeaseOwner(owner).
		SetLeaseExpiresAt(time.Now().Add(time.Minute)).SetAnswer("部分").SetCheckpointSeq(2).SaveX(ctx)
	return a.ID
}

// kickableBroker is a broker whose live subscriptions a test can end, as a
// distributed broker ends them when its connection to the bus breaks.
type kickableBroker struct {
	broker.Broker
	mu   sync.Mutex
	subs []*broker.Subscription
}

func (b *kickableBroker) Subscribe(ctx context.Context, topic string) (*broker.Subscription, error) {
	sub, err := b.Broker.Subscribe(ctx, topic)
	if err == nil {
		b.mu.Lock()
		b.subs = append(b.subs, sub)
		b.mu.Unlock()
	}
	return sub, err
}

// kick ends every subscription made so far.
func (b *kickableBroker) kick() {
	b.mu.Lock()
	subs := b.subs
	b.subs = nil
	b.mu.Unlock()
	for _, s := range subs {
		s.Close()
	}
}

// TestStreamWaitsOutADatabaseOutage: a subscriber on another instance whose
// broker subscription ends while PostgreSQL is down (its bus connection
// broke with it) neither ends its stream nor loses text: it resubscribes
// once the database is back, resyncs from the checkpoint and follows the
// answer to COMPLETED, with exactly the saved answer.
func TestStreamWaitsOutADatabaseOutage(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		cluster := testdb.StartCluster(t)
		db := storetest.Open(t, testdb.Backend{Name: "postgres", DSN: cluster.Database()})
		e, paced, _ := pacedEnv(t, db)
		kick := &kickableBroker{}
		other := e.newInstanceDeps(t, chat.Config{}, func(d *chat.Deps) {
			kick.Broker = e.broker
			d.Broker = kick
		})
		baseline := goroutines()
		conv := e.conversation(t, alice)
		res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: "k", Question: "上传文件最大是多少？"})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(as(alice), time.Minute) // hang guard
		defer cancel()
		ch, err := other.eng.SubscribeAttempt(ctx, res.Attempt.ID, 0)
		require.NoError(t, err)
		r := newStreamReader(t, ch, 0)
		pieces := chunks(strings.Repeat("单个上传文件最大为 20MB [C1]。", 3), 4)
		seq := push(t, paced, 0, pieces[:5]...)
		r.until(seq)

		cluster.Stop()
		kick.kick()
		seq = push(t, paced, seq, pieces[5:10]...) // streamed while the database is down
		cluster.Start()
		push(t, paced, seq, pieces[10:]...)
		close(paced.feed)

		last := r.rest()
		require.NoError(t, ctx.Err(), "the subscriber waited for ever")
		require.Equal(t, chat.EventCompleted, last.Kind, "the stream ended with %+v", last)
		assert.Equal(t, last.Attempt.Answer, r.text.String())
		chat.WaitIdle(e.eng)
		assertGoroutinesBack(t, baseline)
	})
}
