package chat_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/chat/history"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// branchFollowUp is the question asked on each branch: a follow-up, so
// the rewrite looks at the history.
const branchFollowUp = "那超过以后返回什么错误码？"

// sideModel records what the rewrite and the embeddings are given, beside
// the spy that records answer prompts.
type sideModel struct {
	llm.Model
	mu       sync.Mutex
	rewrites []llm.RewriteRequest
	embedded []string
}

func (m *sideModel) Rewrite(ctx context.Context, req llm.RewriteRequest) (llm.RewriteResult, error) {
	m.mu.Lock()
	m.rewrites = append(m.rewrites, req)
	m.mu.Unlock()
	return m.Model.Rewrite(ctx, req)
}

func (m *sideModel) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	m.mu.Lock()
	m.embedded = append(m.embedded, texts...)
	m.mu.Unlock()
	return m.Model.Embed(ctx, texts)
}

// reset forgets what was recorded.
func (m *sideModel) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rewrites, m.embedded = nil, nil
}

// seen returns everything the rewrite and the embeddings were given since
// the last reset, as one text.
func (m *sideModel) seen() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	for _, r := range m.rewrites {
		b.WriteString(r.Question + "\n" + r.Summary + "\n")
		for _, x := range append(slices.Clone(r.History), r.Earlier...) {
			b.WriteString(x.User + "\n" + x.Assistant + "\n")
		}
	}
	for _, t := range m.embedded {
		b.WriteString(t + "\n")
	}
	return b.String()
}

// newSideEnv is newEnv whose engine's model is wrapped by a sideModel.
func newSideEnv(t *testing.T, db *store.DB, opts ...envOption) (*env, *sideModel) {
	side := &sideModel{}
	e := newEnvDeps(t, db, nil, func(d *chat.Deps) { side.Model = d.Model; d.Model = side }, opts...)
	return e, side
}

// treeWriter writes a conversation's message tree through Ent, as alice,
// the way the engine's writes shape it (docs/ENGINE.md, "Message trees"):
// a question's parent is the message it follows, an answer's parent is
// its question, depth is the parent's plus one, sequence numbers are the
// conversation's creation order.
type treeWriter struct {
	t    testing.TB
	e    *env
	conv *ent.Conversation
	seq  int64
}

func newTreeWriter(t testing.TB, e *env, conv *ent.Conversation) *treeWriter {
	return &treeWriter{t: t, e: e, conv: conv}
}

// round writes a question following parent (nil: a root) and its
// completed answer, and returns both.
func (w *treeWriter) round(parent *ent.Message, question, answer string) (u, a *ent.Message) {
	w.t.Helper()
	ctx, c := as(alice), w.e.db.Client
	depth := 0
	uc := c.Message.Create().SetConversationID(w.conv.ID).SetOwnerID("alice").SetRole(message.RoleUSER).SetContent(question)
	if parent != nil {
		uc.SetParentID(parent.ID)
		depth = parent.Depth + 1
	}
	w.seq++
	u = uc.SetDepth(depth).SetSequenceNo(w.seq).SaveX(ctx)
	now := time.Now()
	att := c.Attempt.Create().SetConversationID(w.conv.ID).SetOwnerID("alice").SetUserMessageID(u.ID).
		SetClientRequestID(uuid.NewString()).SetOriginalQuestion(question).
		SetStatus(attempt.StatusCOMPLETED).SetAnswer(answer).SetStartedAt(now).SetCompletedAt(now).SaveX(ctx)
	w.seq++
	a = c.Message.Create().SetConversationID(w.conv.ID).SetOwnerID("alice").SetRole(message.RoleASSISTANT).
		SetContent(answer).SetAttemptID(att.ID).SetParentID(u.ID).SetDepth(depth + 1).SetSequenceNo(w.seq).SaveX(ctx)
	w.setLeaf(a)
	return u, a
}

// setLeaf makes m the conversation's current leaf, as selectBranch does.
func (w *treeWriter) setLeaf(m *ent.Message) {
	w.t.Helper()
	w.conv = w.e.db.Client.Conversation.UpdateOneID(w.conv.ID).
		SetCurrentLeafID(m.ID).SetLastSequenceNo(w.seq).SaveX(as(alice))
}

// oldRound and newRound are the texts of round i of the old branch and
// of the branch that edits round 3: each carries a token of its own
// (OLD5, NEW3) that the summary lines keep.
func oldRound(i int) (string, string) {
	return fmt.Sprintf("旧分支第%d轮：上传文件 OLD%d 最大是多少？", i, i), fmt.Sprintf("旧答案 OLD%d：单个上传文件最大为 20MB。", i)
}

func newRound(i int) (string, string) {
	return fmt.Sprintf("新分支第%d轮：退款 NEW%d 多久到账？", i, i), fmt.Sprintf("新答案 NEW%d：退款三个工作日内到账。", i)
}

// branchedTree is the acceptance conversation of issue 18 written through
// Ent: eight rounds, folded by the summariser as they came (after round 4
// up to round 2, after round 8 up to round 6), then round 3 edited and the
// new branch answered twice. The current leaf is the new branch's last
// answer.
type branchedTree struct {
	w          *treeWriter
	old        [9][2]*ent.Message // round i: question, answer
	edited     [5][2]*ent.Message // rounds 3 and 4 of the new branch
	oldLeaf    *ent.Message
	newLeaf    *ent.Message
	summarised bool
}

func writeBranchedTree(t *testing.T, e *env, s domain.HistoryStrategy) *branchedTree {
	t.Helper()
	ctx := as(alice)
	b := &branchedTree{w: newTreeWriter(t, e, e.conversation(t, alice)), summarised: s.UsesSummary()}
	var parent *ent.Message
	for i := 1; i <= 8; i++ {
		q, a := oldRound(i)
		b.old[i][0], b.old[i][1] = b.w.round(parent, q, a)
		parent = b.old[i][1]
		if i == 4 || i == 8 {
			require.NoError(t, chat.SummarizeNow(ctx, e.eng, b.w.conv.ID))
		}
	}
	b.oldLeaf = parent
	if b.summarised {
		for _, m := range []*ent.Message{b.old[2][1], b.old[6][1]} {
			got := e.db.Client.Message.GetX(ctx, m.ID)
			require.NotNil(t, got.PathSummary, "a fold stores its summary on the message it covers up to (seq %d)", m.SequenceNo)
		}
		require.Equal(t, b.old[6][1].SequenceNo, e.db.Client.Conversation.GetX(ctx, b.w.conv.ID).SummaryMessageSequence)
	}
	parent = b.old[2][1] // round 3 edited: a sibling question under the same parent
	for i := 3; i <= 4; i++ {
		q, a := newRound(i)
		b.edited[i][0], b.edited[i][1] = b.w.round(parent, q, a)
		parent = b.edited[i][1]
	}
	b.newLeaf = parent
	return b
}

// ids returns the ids of the messages of rounds from..to of rs.
func roundIDs(rs [][2]*ent.Message) map[string]bool {
	out := map[string]bool{}
	for _, r := range rs {
		if r[0] != nil {
			out[r[0].ID.String()], out[r[1].ID.String()] = true, true
		}
	}
	return out
}

// requireOnlyPath checks a built context against the path it must come
// from: none of the forbidden tokens in the prompt, the rewrite or the
// embeddings; every round, candidate and message id of the manifest on
// the path; the parent named.
func requireOnlyPath(t *testing.T, bc history.BuiltContext, side *sideModel, parent *ent.Message, path map[string]bool, pathUserSeqs map[int64]bool, forbidden []string) {
	t.Helper()
	text := bc.Assembled.System + "\n" + bc.Assembled.User + "\n" + side.seen()
	for _, f := range forbidden {
		require.NotContains(t, text, f, "the context carries another branch's round")
	}
	m := bc.Assembled.Manifest
	require.Equal(t, parent.ID.String(), m.ParentID)
	for _, id := range m.HistoryMessageIDs {
		require.True(t, path[id], "history message %s is not on the path", id)
	}
	require.Len(t, m.HistoryMessageIDs, 2*len(m.Rounds))
	for _, r := range m.Rounds {
		require.True(t, pathUserSeqs[r.UserSeq], "round %d is not on the path", r.UserSeq)
	}
	for _, c := range m.Candidates {
		require.True(t, pathUserSeqs[c.UserSeq], "PRIORITIZED candidate %d is not on the path", c.UserSeq)
	}
}

// userSeqs returns the sequence numbers of the questions of rs.
func userSeqs(rs [][2]*ent.Message) map[int64]bool {
	out := map[int64]bool{}
	for _, r := range rs {
		if r[0] != nil {
			out[r[0].SequenceNo] = true
		}
	}
	return out
}

// TestHistoryFollowsTheBranch is issue 18's acceptance scenario on a tree
// written through Ent, under every strategy and on both backends: eight
// rounds, round 3 edited and the new branch answered. The context of the
// next question on the new branch carries nothing of rounds 3–8 of the old
// branch (no text, no summary line, no PRIORITIZED candidate, nothing in
// the rewrite or the embeddings), and the summary it continues is the one
// stored on round 2's answer, never the conversation's (written for the
// old branch). Selected back, the old branch continues with its own
// history: its rounds and its summary, nothing of the new branch.
func TestHistoryFollowsTheBranch(t *testing.T) {
	for _, s := range domain.HistoryStrategies {
		t.Run(string(s), func(t *testing.T) {
			storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
				e, side := newSideEnv(t, db, strategy(s, 2, 1))
				b := writeBranchedTree(t, e, s)
				var oldForbidden, newForbidden []string
				for i := 3; i <= 8; i++ {
					oldForbidden = append(oldForbidden, fmt.Sprintf("OLD%d", i))
				}
				newForbidden = []string{"NEW3", "NEW4"}

				// On the new branch.
				side.reset()
				bc, err := chat.PreviewBuilt(as(alice), e.eng, b.w.conv.ID, branchFollowUp)
				require.NoError(t, err)
				newPath := [][2]*ent.Message{b.old[1], b.old[2], b.edited[3], b.edited[4]}
				requireOnlyPath(t, bc, side, b.newLeaf, roundIDs(newPath), userSeqs(newPath), oldForbidden)
				m := bc.Assembled.Manifest
				require.Equal(t, s, m.Strategy)
				if s != domain.StrategySemanticSummary {
					require.Contains(t, bc.Assembled.User, "NEW4", "the previous round of the new branch")
					require.Equal(t, b.edited[4][1].SequenceNo, m.HistoryToSeq)
				}
				if b.summarised {
					require.True(t, m.SummaryIncluded)
					require.Equal(t, b.old[2][1].ID.String(), m.SummaryMessageID, "the nearest summarised ancestor")
					require.Contains(t, bc.Assembled.User, "OLD1", "round 1 reaches the prompt through the branch point's summary")
				} else {
					require.False(t, m.SummaryIncluded)
					require.NotContains(t, bc.Assembled.User, "OLD1", "SLIDING_WINDOW with N = 2 keeps the two newest rounds")
				}

				// Selected back: the old branch with its own history.
				b.w.setLeaf(b.oldLeaf)
				side.reset()
				bc, err = chat.PreviewBuilt(as(alice), e.eng, b.w.conv.ID, branchFollowUp)
				require.NoError(t, err)
				oldPath := b.old[1:]
				requireOnlyPath(t, bc, side, b.oldLeaf, roundIDs(oldPath), userSeqs(oldPath), newForbidden)
				require.Contains(t, bc.Assembled.User, "OLD8")
				m = bc.Assembled.Manifest
				if b.summarised {
					require.True(t, m.SummaryIncluded)
					require.Equal(t, b.old[6][1].ID.String(), m.SummaryMessageID)
					require.Contains(t, bc.Assembled.User, "OLD5", "round 5 is in round 6's path summary")
				}
				if s == domain.StrategyPrioritized {
					require.Len(t, m.Candidates, 8, "every round of the old path is a candidate, none of the new branch")
				}
			})
		})
	}
}

// TestLegacySummaryFollowsItsMessage: a conversation summary written
// before messages carried path summaries (summary and
// summary_message_sequence, no path_summary) is used on a path only where
// the message it covers up to is an ancestor of the question; on another
// branch the window falls back to the lines of the path's own rounds.
func TestLegacySummaryFollowsItsMessage(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e, side := newSideEnv(t, db, strategy(domain.StrategyHybrid, 2, 100))
		w := newTreeWriter(t, e, e.conversation(t, alice))
		var parent *ent.Message
		var old [][2]*ent.Message
		for i := 1; i <= 6; i++ {
			q, a := oldRound(i)
			u, ans := w.round(parent, q, a)
			old = append(old, [2]*ent.Message{u, ans})
			parent = ans
		}
		oldLeaf := parent
		q, a := newRound(3)
		_, newLeaf := w.round(old[1][1], q, a) // round 3 edited
		legacy := func(covered *ent.Message) {
			e.db.Client.Conversation.UpdateOneID(w.conv.ID).SetSummary("用户问：LEGACYSUM 旧摘要；助手回答结果：已回答").
				SetSummaryMessageSequence(covered.SequenceNo).SetSummaryVersion(3).ExecX(as(alice))
		}
		build := func() history.BuiltContext {
			side.reset()
			bc, err := chat.PreviewBuilt(as(alice), e.eng, w.conv.ID, branchFollowUp)
			require.NoError(t, err)
			return bc
		}

		// The summary covers up to round 2's answer, an ancestor of both
		// branches.
		legacy(old[1][1])
		w.setLeaf(newLeaf)
		bc := build()
		require.Contains(t, bc.Assembled.User, "LEGACYSUM")
		require.Equal(t, 3, bc.Assembled.Manifest.SummaryVersion)
		require.Empty(t, bc.Assembled.Manifest.SummaryMessageID, "a conversation summary has no path summary message")
		require.NotContains(t, bc.Assembled.User, "OLD1", "rounds 1–2 are covered by the summary")

		// The summary covers up to round 4's answer of the old branch: not
		// an ancestor of the new branch.
		legacy(old[3][1])
		bc = build()
		require.NotContains(t, bc.Assembled.User+side.seen(), "LEGACYSUM")
		require.Zero(t, bc.Assembled.Manifest.SummaryVersion)
		require.Contains(t, bc.Assembled.User, "OLD1", "the path's own rounds as lines")
		require.NotContains(t, bc.Assembled.User+side.seen(), "OLD4")

		w.setLeaf(oldLeaf)
		bc = build()
		require.Contains(t, bc.Assembled.User, "LEGACYSUM")
		require.Contains(t, bc.Assembled.User, "OLD6")
		require.NotContains(t, bc.Assembled.User, "OLD2", "covered by the summary")
		require.NotContains(t, bc.Assembled.User+side.seen(), "NEW3")
	})
}

// TestFoldFollowsTheBranch: the summariser folds the current branch's
// path from its nearest summarised ancestor and stores the result on the
// message it covers up to on that branch. Switching branches folds
// nothing (the whole tree is never re-summarised); a fold on the new
// branch continues the branch point's summary and never carries a round
// of the old branch, and the old branch's summaries stay as they were.
func TestFoldFollowsTheBranch(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e, _ := newSideEnv(t, db, strategy(domain.StrategyHybrid, 2, 1))
		ctx := as(alice)
		b := writeBranchedTree(t, e, domain.StrategyHybrid)
		oldSummary := *e.db.Client.Message.GetX(ctx, b.old[6][1].ID).PathSummary
		versions := func() map[uuid.UUID]int {
			out := map[uuid.UUID]int{}
			for _, m := range e.db.Client.Message.Query().Where(message.ConversationID(b.w.conv.ID), message.PathSummaryNotNil()).AllX(ctx) {
				out[m.ID] = m.PathSummaryVersion
			}
			return out
		}
		before := versions()
		require.Len(t, before, 2)

		// The new branch has two rounds below round 2's summary: not due.
		require.NoError(t, chat.SummarizeNow(ctx, e.eng, b.w.conv.ID))
		require.Equal(t, before, versions(), "a switch re-summarises nothing")

		// Two more rounds make four pending: the oldest two fold.
		parent := b.newLeaf
		var rounds [][2]*ent.Message
		for i := 5; i <= 6; i++ {
			q, a := newRound(i)
			u, ans := b.w.round(parent, q, a)
			rounds = append(rounds, [2]*ent.Message{u, ans})
			parent = ans
		}
		require.NoError(t, chat.SummarizeNow(ctx, e.eng, b.w.conv.ID))
		after := versions()
		require.Len(t, after, 3)
		for id, v := range before {
			require.Equal(t, v, after[id], "the old branch's summaries are untouched")
		}
		covered := e.db.Client.Message.GetX(ctx, b.edited[4][1].ID)
		require.NotNil(t, covered.PathSummary, "the fold covers up to round 4 of the new branch")
		require.Equal(t, before[b.old[2][1].ID]+1, covered.PathSummaryVersion, "one past the summary it continues")
		for _, want := range []string{"OLD1", "OLD2", "NEW3", "NEW4"} {
			require.Contains(t, *covered.PathSummary, want)
		}
		for i := 3; i <= 8; i++ {
			require.NotContains(t, *covered.PathSummary, fmt.Sprintf("OLD%d", i))
		}
		require.Equal(t, oldSummary, *e.db.Client.Message.GetX(ctx, b.old[6][1].ID).PathSummary)
		conv := e.db.Client.Conversation.GetX(ctx, b.w.conv.ID)
		require.Equal(t, *covered.PathSummary, conv.Summary, "the conversation's summary is the current path's")
		require.Equal(t, covered.SequenceNo, conv.SummaryMessageSequence)

		// The next context on the new branch continues it.
		m, err := e.eng.PreviewContext(ctx, b.w.conv.ID, branchFollowUp)
		require.NoError(t, err)
		require.Equal(t, covered.ID.String(), m.SummaryMessageID)
		require.Equal(t, covered.PathSummaryVersion, m.SummaryVersion)
	})
}

// TestTreeContextCostIsFlat: assembling the context on the current branch
// of a tree of 1,000 rounds with 20 branches sends exactly as many
// statements as on one of 10 rounds, under every strategy: the window is
// one bounded walk up the path. The two trees are seeded once per backend
// and each strategy is set on the tenant in turn.
func TestTreeContextCostIsFlat(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, raw *store.DB) {
		db, n := countedDB(raw)
		e := newEnv(t, db)
		var convs []*ent.Conversation
		for _, rounds := range []int{10, 1000} {
			conv := e.conversation(t, alice)
			seedTree(t, e, conv, rounds, 20)
			convs = append(convs, conv)
		}
		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		for _, s := range domain.HistoryStrategies {
			t.Run(string(s), func(t *testing.T) {
				st := domain.DefaultTenantSettings()
				st.HistoryStrategy = s
				require.NoError(t, e.db.Client.Tenant.UpdateOneID(demo.TenantID).SetSettings(st).Exec(sys))
				var counts []int64
				for _, conv := range convs {
					_, err := e.eng.PreviewContext(as(alice), conv.ID, branchFollowUp) // warm-up
					require.NoError(t, err)
					n.Store(0)
					m, err := e.eng.PreviewContext(as(alice), conv.ID, branchFollowUp)
					require.NoError(t, err)
					require.Equal(t, s, m.Strategy)
					require.NotEmpty(t, m.ParentID)
					if s == domain.StrategySemanticSummary {
						require.True(t, m.SummaryIncluded)
					} else {
						require.Positive(t, m.HistoryRounds)
					}
					counts = append(counts, n.Load())
				}
				require.Equal(t, counts[0], counts[1], "statements for 10 vs 1,000 rounds")
			})
		}
	})
}

// seedTree writes rounds whole rounds as one path with bulk inserts (ids
// chosen here, so that parents are known before the rows exist), plus
// branches edited questions with an answer each, spread along the path,
// and a path summary on the answer of the round eight before the last, as
// the summariser would leave it. The current leaf is the path's last
// answer.
func seedTree(tb testing.TB, e *env, conv *ent.Conversation, rounds, branches int) {
	tb.Helper()
	ctx, c := as(alice), e.db.Client
	now := time.Now()
	type row struct {
		user, att, answer uuid.UUID
		parent            *uuid.UUID
		depth             int
		q                 string
	}
	var rows []row
	var prev *uuid.UUID
	for i := range rounds {
		r := row{user: uuid.New(), att: uuid.New(), answer: uuid.New(), parent: prev, depth: 2 * i,
			q: fmt.Sprintf("第%d个问题：上传文件最大是多少？", i)}
		rows = append(rows, r)
		prev = &r.answer
	}
	path := len(rows)
	step := max(1, rounds/branches)
	for k := 0; k < branches && k*step < rounds; k++ {
		at := rows[k*step]
		rows = append(rows, row{user: uuid.New(), att: uuid.New(), answer: uuid.New(), parent: at.parent, depth: at.depth,
			q: fmt.Sprintf("改写的第%d个问题：退款多久到账？", k*step)})
	}
	summaryAt := max(0, rounds-8)
	const batch = 400
	for start := 0; start < len(rows); start += batch {
		part := rows[start:min(start+batch, len(rows))]
		users := make([]*ent.MessageCreate, len(part))
		atts := make([]*ent.AttemptCreate, len(part))
		answers := make([]*ent.MessageCreate, len(part))
		for k, r := range part {
			i := start + k
			users[k] = c.Message.Create().SetID(r.user).SetConversationID(conv.ID).SetOwnerID("alice").
				SetSequenceNo(int64(2*i + 1)).SetRole(message.RoleUSER).SetContent(r.q).SetNillableParentID(r.parent).SetDepth(r.depth)
			atts[k] = c.Attempt.Create().SetID(r.att).SetConversationID(conv.ID).SetOwnerID("alice").
				SetUserMessageID(r.user).SetClientRequestID(uuid.NewString()).SetOriginalQuestion(r.q).
				SetStatus(attempt.StatusCOMPLETED).SetAnswer("单个上传文件最大为 20MB。").SetStartedAt(now).SetCompletedAt(now)
			answers[k] = c.Message.Create().SetID(r.answer).SetConversationID(conv.ID).SetOwnerID("alice").
				SetSequenceNo(int64(2*i + 2)).SetRole(message.RoleASSISTANT).SetContent("单个上传文件最大为 20MB。").
				SetAttemptID(r.att).SetParentID(r.user).SetDepth(r.depth + 1)
			if i == summaryAt && i < path {
				answers[k].SetPathSummary("用户问：上传文件最大是多少？；助手回答结果：已回答").SetPathSummaryVersion(1 + i/4)
			}
		}
		c.Message.CreateBulk(users...).ExecX(ctx)
		c.Attempt.CreateBulk(atts...).ExecX(ctx)
		c.Message.CreateBulk(answers...).ExecX(ctx)
	}
	c.Conversation.UpdateOneID(conv.ID).SetLastSequenceNo(int64(2 * len(rows))).SetCurrentLeafID(rows[path-1].answer).ExecX(ctx)
}

// engineRound is one round asked through the engine: its question and
// answer messages.
type engineRound [2]*ent.Message

// answered waits for the answer of an ask or an edit, and for the work
// after it (the summary fold), and returns the round and what the answer's
// prompt was.
func answered(t *testing.T, e *env, res *chat.AskResult, err error) (engineRound, string) {
	t.Helper()
	require.NoError(t, err)
	o := e.wait(t, alice, res.Attempt.ID, 0)
	require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
	chat.WaitIdle(e.eng)
	answer := e.db.Client.Message.Query().Where(message.AttemptID(o.attempt.ID)).OnlyX(as(alice))
	var prompt strings.Builder
	for _, m := range e.model.lastPrompt().Messages {
		prompt.WriteString(m.Content + "\n")
	}
	return engineRound{res.UserMessage, answer}, prompt.String()
}

// askNext asks question after the conversation's current leaf.
func askNext(t *testing.T, e *env, conv uuid.UUID, question string) (engineRound, string) {
	t.Helper()
	res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv, ClientMessageID: uuid.NewString(), Question: question})
	return answered(t, e, res, err)
}

// manifestOf returns the context manifest of the attempt that answered r.
func manifestOf(t *testing.T, e *env, r engineRound) *domain.ContextManifest {
	t.Helper()
	a := e.db.Client.Attempt.GetX(as(alice), *r[1].AttemptID)
	require.NotNil(t, a.ContextManifest)
	return a.ContextManifest
}

// TestBranchHistoryThroughTheEngine is issue 18's acceptance scenario
// through the engine, with the spy model recording the answer prompts,
// under every strategy and on both backends: eight rounds (the summariser
// folding as they come), round 3 edited (editMessage) and answered, and a
// follow-up on the new branch: neither prompt, rewrite nor embedding
// carries anything of rounds 3–8 of the old branch, and the manifests name
// the new path. Then the old round 3 is selected (selectBranch continues
// to round 8's answer, its most recent leaf) and asked on twice: its
// prompts carry the old branch's own rounds and summary and nothing of
// the new branch. Selected again, the new branch continues where it was.
func TestBranchHistoryThroughTheEngine(t *testing.T) {
	for _, s := range domain.HistoryStrategies {
		t.Run(string(s), func(t *testing.T) {
			storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
				e, side := newSideEnv(t, db, strategy(s, 2, 1))
				ctx := as(alice)
				conv := e.conversation(t, alice).ID
				var old [9]engineRound
				for i := 1; i <= 8; i++ {
					q, _ := oldRound(i)
					old[i], _ = askNext(t, e, conv, q)
				}
				var oldForbidden []string
				for i := 3; i <= 8; i++ {
					oldForbidden = append(oldForbidden, fmt.Sprintf("OLD%d", i))
				}
				newForbidden := []string{"NEW3", "NEW4"}
				check := func(prompt string, r engineRound, parent *ent.Message, path []engineRound, forbidden []string) {
					t.Helper()
					text := prompt + side.seen()
					for _, f := range forbidden {
						require.NotContains(t, text, f, "the context carries another branch's round")
					}
					require.Equal(t, parent.ID, *r[0].ParentID)
					m := manifestOf(t, e, r)
					require.Equal(t, parent.ID.String(), m.ParentID)
					ids, seqs := map[string]bool{}, map[int64]bool{}
					for _, p := range path {
						ids[p[0].ID.String()], ids[p[1].ID.String()] = true, true
						seqs[p[0].SequenceNo] = true
					}
					require.Len(t, m.HistoryMessageIDs, 2*len(m.Rounds))
					for _, id := range m.HistoryMessageIDs {
						require.True(t, ids[id], "history message %s is not on the path", id)
					}
					for _, c := range m.Candidates {
						require.True(t, seqs[c.UserSeq], "PRIORITIZED candidate %d is not on the path", c.UserSeq)
					}
					if m.SummaryMessageID != "" {
						require.True(t, ids[m.SummaryMessageID], "the summary's message is on the path")
					}
				}

				// Round 3 edited: a new branch after round 2's answer.
				side.reset()
				q, _ := newRound(3)
				res, err := e.eng.Ask(ctx, chat.AskInput{EditOf: ptrTo(old[3][0].ID), ClientMessageID: uuid.NewString(), Question: q})
				n3, prompt := answered(t, e, res, err)
				require.Equal(t, old[3][0].ID, *n3[0].EditedFromID)
				check(prompt, n3, old[2][1], []engineRound{old[1], old[2]}, oldForbidden)
				if s.UsesSummary() {
					require.Equal(t, old[2][1].ID.String(), manifestOf(t, e, n3).SummaryMessageID,
						"the summary stored on round 2's answer, not the conversation's (the old branch's)")
				}
				side.reset()
				n4, prompt := askNext(t, e, conv, branchFollowUp+" NEW4")
				check(prompt, n4, n3[1], []engineRound{old[1], old[2], n3}, oldForbidden)
				if s != domain.StrategySemanticSummary {
					require.Contains(t, prompt, "NEW3", "the new branch's previous round")
				}

				// The old round 3 selected: the old branch, continued twice.
				_, err = e.eng.SelectBranch(ctx, conv, old[3][0].ID)
				require.NoError(t, err)
				side.reset()
				o9, prompt := askNext(t, e, conv, branchFollowUp+" OLD9")
				check(prompt, o9, old[8][1], old[1:], newForbidden)
				require.Contains(t, prompt, "OLD8", "the old branch's previous round")
				side.reset()
				o10, prompt := askNext(t, e, conv, branchFollowUp)
				check(prompt, o10, o9[1], append(slices.Clone(old[1:]), o9), newForbidden)
				require.Contains(t, prompt, "OLD9")
				if s == domain.StrategyPrioritized {
					require.NotEmpty(t, manifestOf(t, e, o10).Candidates)
				}

				// The new branch selected again: it continues after its
				// follow-up, with nothing of the old branch after round 2.
				_, err = e.eng.SelectBranch(ctx, conv, n3[0].ID)
				require.NoError(t, err)
				side.reset()
				n5, prompt := askNext(t, e, conv, branchFollowUp+" NEW5")
				check(prompt, n5, n4[1], []engineRound{old[1], old[2], n3, n4}, append(oldForbidden, "OLD9"))
			})
		})
	}
}
