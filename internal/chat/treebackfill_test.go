package chat_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/chat/tree"
	"github.com/ragchat/ragchat/internal/chat/treebackfill"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/testdb"
	"github.com/ragchat/ragchat/internal/tokens"
	"github.com/ragchat/ragchat/internal/viewer"
)

// previousMigration is the last migration before message trees.
const previousMigration = 20261201140414

// legacyAttempt is an attempt as the code before message trees wrote it.
type legacyAttempt struct {
	status  attempt.Status
	retryOf int // index+1 of the attempt it retries; 0 for none
}

// legacyMessage is a message as the code before message trees wrote it:
// no parent, depth 0. Answers name their attempt by index.
type legacyMessage struct {
	role    message.Role
	content string
	attempt int // ASSISTANT: index of its attempt; USER: -1
}

// legacyConversation is a conversation of alice's as the old code wrote it,
// with the tree the backfill must give it: parents and depths by message
// index (parent -1 for a root), and the leaf's index.
type legacyConversation struct {
	name     string
	messages []legacyMessage
	// attempts[i] answers the USER message at attemptOf[i].
	attempts  []legacyAttempt
	attemptOf []int
	parents   []int
	depths    []int
	leaf      int
}

// legacyWorld is the conversations of the backfill tests: a linear
// conversation with a retried answer and a failed attempt retried, one
// with a single unanswered question, and one without messages (left
// alone).
var legacyWorld = []legacyConversation{
	{
		name: "linear with retries",
		messages: []legacyMessage{
			{message.RoleUSER, "legacy q1", -1},
			{message.RoleASSISTANT, "legacy a1", 0},
			{message.RoleUSER, "legacy q2", -1},
			{message.RoleASSISTANT, "legacy superseded answer", 1},
			{message.RoleASSISTANT, "legacy a2 retried", 2},
			{message.RoleUSER, "legacy q3", -1},
			{message.RoleASSISTANT, "legacy a3 after a failure", 4},
		},
		attempts: []legacyAttempt{
			{attempt.StatusCOMPLETED, 0}, {attempt.StatusCOMPLETED, 0}, {attempt.StatusCOMPLETED, 2},
			{attempt.StatusFAILED, 0}, {attempt.StatusCOMPLETED, 4},
		},
		attemptOf: []int{0, 2, 2, 5, 5},
		parents:   []int{-1, 0, 1, 2, 2, 4, 5},
		depths:    []int{0, 1, 2, 3, 3, 4, 5},
		leaf:      6,
	},
	{
		name:      "one unanswered question",
		messages:  []legacyMessage{{message.RoleUSER, "legacy lone question", -1}},
		attempts:  []legacyAttempt{{attempt.StatusFAILED, 0}},
		attemptOf: []int{0},
		parents:   []int{-1},
		depths:    []int{0},
		leaf:      0,
	},
	{name: "empty", leaf: -1},
}

// legacyIDs are the ids a legacy conversation was written with.
type legacyIDs struct {
	conv     uuid.UUID
	messages []uuid.UUID
	attempts []uuid.UUID
}

// newLegacyIDs chooses the ids of the conversations of legacyWorld.
func newLegacyIDs() []legacyIDs {
	out := make([]legacyIDs, len(legacyWorld))
	for i, c := range legacyWorld {
		out[i].conv = uuid.New()
		for range c.messages {
			out[i].messages = append(out[i].messages, uuid.New())
		}
		for range c.attempts {
			out[i].attempts = append(out[i].attempts, uuid.New())
		}
	}
	return out
}

// writeLegacySQL writes legacyWorld with plain SQL into a PostgreSQL
// database at the previous migration, column by column as the old code
// wrote them, in knowledge base kb.
func writeLegacySQL(t *testing.T, pool *sql.DB, kb uuid.UUID, ids []legacyIDs) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Add(-time.Hour)
	exec := func(q string, args ...any) {
		t.Helper()
		_, err := pool.ExecContext(ctx, q, args...)
		require.NoError(t, err, q)
	}
	for ci, c := range legacyWorld {
		id := ids[ci]
		exec(`INSERT INTO conversations (id, created_at, updated_at, user_id, title, status, version, last_sequence_no,
			expires_at, absolute_expires_at, tenant_id, knowledge_base_id)
			VALUES ($1, $2, $2, 'alice', $3, 'ACTIVE', $4, $4, $5, $6, $7, $8)`,
			id.conv, now, c.name, len(c.messages), now.Add(24*time.Hour), now.Add(30*24*time.Hour), demo.TenantID, kb)
		// The old code wrote a question, then its attempt, then (on
		// completion) its answer.
		written := map[int]bool{}
		writeAttempt := func(ai int) {
			a := c.attempts[ai]
			var retry any
			if a.retryOf > 0 {
				retry = id.attempts[a.retryOf-1]
			}
			answer := ""
			for _, m := range c.messages {
				if m.role == message.RoleASSISTANT && m.attempt == ai {
					answer = m.content
				}
			}
			exec(`INSERT INTO attempts (id, owner_id, created_at, updated_at, status, original_question, answer, model,
				prompt_tokens, completion_tokens, total_tokens, started_at, completed_at, tenant_id, retry_of_id,
				conversation_id, user_message_id)
				VALUES ($1, 'alice', $2, $2, $3, $4, $5, 'legacy-model', 10, 5, 15, $2, $2, $6, $7, $8, $9)`,
				id.attempts[ai], now, string(a.status), c.messages[c.attemptOf[ai]].content, answer, demo.TenantID, retry,
				id.conv, id.messages[c.attemptOf[ai]])
			written[ai] = true
		}
		for mi, m := range c.messages {
			var att any
			if m.role == message.RoleASSISTANT {
				att = id.attempts[m.attempt]
			}
			exec(`INSERT INTO messages (id, owner_id, sequence_no, role, content, client_message_id, model, created_at,
				attempt_id, conversation_id, tenant_id)
				VALUES ($1, 'alice', $2, $3, $4, $5, 'legacy-model', $6, $7, $8, $9)`,
				id.messages[mi], mi+1, string(m.role), m.content, fmt.Sprintf("legacy-%d", mi), now.Add(time.Duration(mi)*time.Second),
				att, id.conv, demo.TenantID)
			if m.role == message.RoleUSER {
				for ai, of := range c.attemptOf {
					if of == mi && !written[ai] {
						writeAttempt(ai)
					}
				}
			}
		}
	}
}

// writeLegacyEnt writes legacyWorld through Ent, with the tree columns
// left as the migration leaves old rows: no parent, depth 0, no current
// leaf.
func writeLegacyEnt(t *testing.T, client *ent.Client, kb uuid.UUID, ids []legacyIDs) {
	t.Helper()
	ctx := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	now := time.Now().Add(-time.Hour)
	for ci, c := range legacyWorld {
		id := ids[ci]
		client.Conversation.Create().SetID(id.conv).SetTenantID(demo.TenantID).SetUserID("alice").
			SetKnowledgeBaseID(kb).SetTitle(c.name).SetLastSequenceNo(int64(len(c.messages))).
			SetExpiresAt(now.Add(24 * time.Hour)).SetAbsoluteExpiresAt(now.Add(30 * 24 * time.Hour)).
			ExecX(ctx)
		for mi, m := range c.messages {
			if m.role != message.RoleUSER {
				continue
			}
			client.Message.Create().SetID(id.messages[mi]).SetTenantID(demo.TenantID).SetOwnerID("alice").
				SetConversationID(id.conv).SetSequenceNo(int64(mi + 1)).SetRole(m.role).SetContent(m.content).
				SetClientMessageID(fmt.Sprintf("legacy-%d", mi)).SetCreatedAt(now.Add(time.Duration(mi) * time.Second)).
				ExecX(ctx)
		}
		for ai, a := range c.attempts {
			cr := client.Attempt.Create().SetID(id.attempts[ai]).SetTenantID(demo.TenantID).SetOwnerID("alice").
				SetConversationID(id.conv).SetUserMessageID(id.messages[c.attemptOf[ai]]).SetStatus(a.status).
				SetOriginalQuestion(c.messages[c.attemptOf[ai]].content).SetStartedAt(now)
			if a.retryOf > 0 {
				cr.SetRetryOfID(id.attempts[a.retryOf-1])
			}
			cr.ExecX(ctx)
		}
		for mi, m := range c.messages {
			if m.role != message.RoleASSISTANT {
				continue
			}
			client.Message.Create().SetID(id.messages[mi]).SetTenantID(demo.TenantID).SetOwnerID("alice").
				SetConversationID(id.conv).SetSequenceNo(int64(mi + 1)).SetRole(m.role).SetContent(m.content).
				SetAttemptID(id.attempts[m.attempt]).SetCreatedAt(now.Add(time.Duration(mi) * time.Second)).
				ExecX(ctx)
		}
	}
}

// checkBackfilled asserts that the conversations of legacyWorld have the
// trees it describes, and that their updated_at did not move.
func checkBackfilled(t *testing.T, client *ent.Client, ids []legacyIDs) {
	t.Helper()
	ctx := as(alice)
	for ci, c := range legacyWorld {
		id := ids[ci]
		conv, err := client.Conversation.Get(ctx, id.conv)
		require.NoError(t, err)
		if c.leaf < 0 {
			assert.Nil(t, conv.CurrentLeafID, "%s: a conversation without messages is left alone", c.name)
			continue
		}
		require.NotNil(t, conv.CurrentLeafID, c.name)
		assert.Equal(t, id.messages[c.leaf], *conv.CurrentLeafID, "%s: leaf", c.name)
		for mi := range c.messages {
			m, err := client.Message.Get(ctx, id.messages[mi])
			require.NoError(t, err)
			if c.parents[mi] < 0 {
				assert.Nil(t, m.ParentID, "%s: message %d is a root", c.name, mi)
			} else if assert.NotNil(t, m.ParentID, "%s: message %d has a parent", c.name, mi) {
				assert.Equal(t, id.messages[c.parents[mi]], *m.ParentID, "%s: parent of message %d", c.name, mi)
			}
			assert.Equal(t, c.depths[mi], m.Depth, "%s: depth of message %d", c.name, mi)
		}
		// The current path is the main line: every question, each with
		// its latest completed answer.
		path, err := client.Message.Query().
			Where(message.ConversationID(id.conv), tree.Path(*conv.CurrentLeafID, 0)).
			Order(ent.Asc(message.FieldDepth)).All(ctx)
		require.NoError(t, err)
		assert.Len(t, path, c.depths[c.leaf]+1, c.name)
	}
}

// checkAskContinues asks in the first legacy conversation and checks that
// the question follows the backfilled leaf and its answer follows it.
func checkAskContinues(t *testing.T, e *env, ids []legacyIDs) {
	t.Helper()
	c := legacyWorld[0]
	res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: ids[0].conv, ClientMessageID: uuid.NewString(), Question: "继续：上传文件最大是多少？"})
	require.NoError(t, err)
	o := e.wait(t, alice, res.Attempt.ID, 0)
	require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
	assert.Equal(t, int64(len(c.messages)+1), res.UserMessage.SequenceNo)
	require.NotNil(t, res.UserMessage.ParentID, "the ask continues the backfilled path")
	assert.Equal(t, ids[0].messages[c.leaf], *res.UserMessage.ParentID)
	assert.Equal(t, c.depths[c.leaf]+1, res.UserMessage.Depth)
	conv, err := e.eng.Conversation(as(alice), ids[0].conv)
	require.NoError(t, err)
	require.NotNil(t, conv.CurrentLeafID)
	leaf, err := e.db.Client.Message.Get(as(alice), *conv.CurrentLeafID)
	require.NoError(t, err)
	require.NotNil(t, leaf.ParentID)
	assert.Equal(t, res.UserMessage.ID, *leaf.ParentID, "the answer is the new leaf")
	assert.Contains(t, e.model.lastPromptOrEmpty(), "legacy a3 after a failure", "the history is the backfilled path")
	assert.NotContains(t, e.model.lastPromptOrEmpty(), "legacy superseded answer", "the superseded answer is a sibling, not history")
}

// TestTreeBackfillFromPreviousMigration writes alice's conversations into
// a PostgreSQL database at the last migration before message trees, with
// plain SQL as the old code wrote them, migrates up, runs the backfill the
// server runs at start (in batches of one) and checks parents, depths and
// leaves; a second run changes nothing, and an ask continues the path.
func TestTreeBackfillFromPreviousMigration(t *testing.T) {
	url := testdb.PostgresURL(t)
	ctx := context.Background()
	old, err := store.Open(ctx, store.Config{DatabaseURL: url})
	require.NoError(t, err)
	require.NoError(t, store.MigratePostgresTo(ctx, old.SQL, previousMigration))
	version, dirty, err := store.MigrationVersion(ctx, old.SQL)
	require.NoError(t, err)
	require.False(t, dirty)
	require.Equal(t, uint(previousMigration), version)
	// The knowledge tables did not change with message trees: today's
	// loader fills them as the old one did, but for chunks.content_hash
	// (a later migration, content_hashes), which the old schema gets for
	// the load only; migrating up adds it again and backfills it.
	_, err = old.SQL.ExecContext(ctx, `ALTER TABLE chunks ADD COLUMN content_hash varchar`)
	require.NoError(t, err)
	svc := knowledge.NewService(old.Client, offline.New(offline.Options{TokenDelay: -1}), tokens.Default(), knowledge.Options{})
	_, err = knowledge.LoadDemo(ctx, old.Client, svc)
	require.NoError(t, err)
	_, err = old.SQL.ExecContext(ctx, `ALTER TABLE chunks DROP COLUMN content_hash`)
	require.NoError(t, err)
	kb, err := old.Client.KnowledgeBase.Query().First(as(alice))
	require.NoError(t, err)
	ids := newLegacyIDs()
	writeLegacySQL(t, old.SQL, kb.ID, ids)
	require.NoError(t, store.MigratePostgres(ctx, old.SQL))
	require.NoError(t, old.Close())

	db, err := store.Open(ctx, store.Config{DatabaseURL: url, Migrate: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	var before time.Time
	require.NoError(t, db.SQL.QueryRowContext(ctx, `SELECT updated_at FROM conversations WHERE id = $1`, ids[0].conv).Scan(&before))
	var unhashed int
	require.NoError(t, db.SQL.QueryRowContext(ctx, `SELECT count(*) FROM chunks WHERE content_hash IS NULL`).Scan(&unhashed))
	assert.Zero(t, unhashed, "the content_hashes migration backfilled every chunk")
	e := newEnv(t, db)
	n, err := treebackfill.All(ctx, db.Client, 1)
	require.NoError(t, err)
	assert.Equal(t, 2, n, "the two conversations with messages")
	checkBackfilled(t, db.Client, ids)
	var after time.Time
	require.NoError(t, db.SQL.QueryRowContext(ctx, `SELECT updated_at FROM conversations WHERE id = $1`, ids[0].conv).Scan(&after))
	assert.True(t, before.Equal(after), "the backfill is no activity: updated_at stays")

	n, err = treebackfill.All(ctx, db.Client, 1)
	require.NoError(t, err)
	assert.Zero(t, n, "a second run has nothing to do")
	checkBackfilled(t, db.Client, ids)
	checkAskContinues(t, e, ids)
}

// TestTreeBackfillLegacyRows: on both backends, rows with no parents and no
// current leaf (as the migration leaves old rows) get the same trees; the
// single-conversation entry point is idempotent too.
func TestTreeBackfillLegacyRows(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ids := newLegacyIDs()
		writeLegacyEnt(t, e.db.Client, e.kb, ids)
		require.NoError(t, treebackfill.Conversation(t.Context(), e.db.Client, ids[0].conv))
		n, err := treebackfill.All(t.Context(), e.db.Client, 0)
		require.NoError(t, err)
		assert.Equal(t, 1, n, "the first conversation was done already")
		checkBackfilled(t, e.db.Client, ids)
		require.NoError(t, treebackfill.Conversation(t.Context(), e.db.Client, ids[0].conv))
		require.NoError(t, treebackfill.Conversation(t.Context(), e.db.Client, uuid.New()), "an unknown id is nothing to do")
		checkBackfilled(t, e.db.Client, ids)
		checkAskContinues(t, e, ids)
	})
}

// TestTreeBackfillReplicas: three replicas starting together run the
// backfill at once over many legacy conversations; each conversation is
// backfilled exactly once and ends with the right tree.
func TestTreeBackfillReplicas(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		var all [][]legacyIDs
		for range 8 {
			ids := newLegacyIDs()
			writeLegacyEnt(t, db.Client, e.kb, ids)
			all = append(all, ids)
		}
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			total int
			errs  []error
		)
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := treebackfill.All(context.Background(), db.Client, 3)
				mu.Lock()
				defer mu.Unlock()
				total += n
				if err != nil {
					errs = append(errs, err)
				}
			}()
		}
		wg.Wait()
		require.Empty(t, errs)
		assert.Equal(t, 8*2, total, "every conversation with messages is backfilled once")
		for _, ids := range all {
			checkBackfilled(t, db.Client, ids)
		}
	})
}

// TestTreeBackfillRepairsOldReplicaWrites: during a rolling upgrade a
// replica still running the old code can ask in a conversation the
// backfill has already made a tree; it writes its question and answer
// without parents, as before, and does not move the leaf. On both
// backends the next backfill run attaches that question after the old
// leaf (the latest answer of the question before it), the answer below
// it, and keeps the current leaf; a run after that changes nothing.
func TestTreeBackfillRepairsOldReplicaWrites(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ids := newLegacyIDs()
		writeLegacyEnt(t, e.db.Client, e.kb, ids)
		_, err := treebackfill.All(t.Context(), e.db.Client, 0)
		require.NoError(t, err)
		c := legacyWorld[0]
		oldLeaf := ids[0].messages[c.leaf]

		// The old replica's ask and completion.
		sys := viewer.SystemJobContext(t.Context(), viewer.JobProvision)
		now := time.Now()
		conv := e.db.Client.Conversation.UpdateOneID(ids[0].conv).AddLastSequenceNo(2).SaveX(sys)
		q := e.db.Client.Message.Create().SetTenantID(demo.TenantID).SetOwnerID("alice").
			SetConversationID(ids[0].conv).SetSequenceNo(conv.LastSequenceNo - 1).SetRole(message.RoleUSER).
			SetContent("old replica question").SetCreatedAt(now).SaveX(sys)
		a := e.db.Client.Attempt.Create().SetTenantID(demo.TenantID).SetOwnerID("alice").
			SetConversationID(ids[0].conv).SetUserMessageID(q.ID).SetStatus(attempt.StatusCOMPLETED).
			SetOriginalQuestion(q.Content).SetAnswer("old replica answer").SetStartedAt(now).SaveX(sys)
		ans := e.db.Client.Message.Create().SetTenantID(demo.TenantID).SetOwnerID("alice").
			SetConversationID(ids[0].conv).SetSequenceNo(conv.LastSequenceNo).SetRole(message.RoleASSISTANT).
			SetContent("old replica answer").SetAttemptID(a.ID).SetCreatedAt(now).SaveX(sys)

		n, err := treebackfill.All(t.Context(), e.db.Client, 0)
		require.NoError(t, err)
		assert.Equal(t, 1, n, "the conversation with a second root is repaired")
		q = e.db.Client.Message.GetX(as(alice), q.ID)
		require.NotNil(t, q.ParentID)
		assert.Equal(t, oldLeaf, *q.ParentID, "the question follows the latest answer before it")
		assert.Equal(t, c.depths[c.leaf]+1, q.Depth)
		ans = e.db.Client.Message.GetX(as(alice), ans.ID)
		require.NotNil(t, ans.ParentID)
		assert.Equal(t, q.ID, *ans.ParentID)
		assert.Equal(t, q.Depth+1, ans.Depth)
		for mi := range c.messages {
			m := e.db.Client.Message.GetX(as(alice), ids[0].messages[mi])
			assert.Equal(t, c.depths[mi], m.Depth, "depth of legacy message %d", mi)
		}
		got, err := e.eng.Conversation(as(alice), ids[0].conv)
		require.NoError(t, err)
		require.NotNil(t, got.CurrentLeafID)
		assert.Equal(t, oldLeaf, *got.CurrentLeafID, "the leaf is kept")

		n, err = treebackfill.All(t.Context(), e.db.Client, 0)
		require.NoError(t, err)
		assert.Zero(t, n, "repaired once")
	})
}
