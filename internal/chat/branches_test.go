package chat_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// errJSON is an error as a client sees it, for byte-identical comparisons.
func errJSON(t *testing.T, err error) string {
	t.Helper()
	require.Error(t, err)
	var de *domain.Error
	require.ErrorAs(t, err, &de)
	b, jerr := json.Marshal(struct {
		Msg     string
		Code    domain.Code
		Details map[string]any
	}{domain.ErrorMessage(err), de.Code, de.Details})
	require.NoError(t, jerr)
	return string(b)
}

// TestAskBuildsAPath: asks on a conversation make one path, question,
// answer, question, answer…, each message one deeper than its parent; the
// current leaf is the new question while it is answered and its answer
// once it is.
func TestAskBuildsAPath(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		assert.Equal(t, uuid.Nil, e.leafOf(t, conv.ID), "no leaf before the first question")
		var last uuid.UUID
		for i, q := range []string{"上传文件最大是多少？", "那超过以后返回什么错误码？", "退款多久到账？"} {
			e.model.hold()
			res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: q})
			require.NoError(t, err)
			assert.Equal(t, 2*i, res.UserMessage.Depth)
			if i == 0 {
				assert.Nil(t, res.UserMessage.ParentID)
			} else {
				require.NotNil(t, res.UserMessage.ParentID)
				assert.Equal(t, last, *res.UserMessage.ParentID, "a question follows the last answer")
			}
			assert.Equal(t, res.UserMessage.ID, e.leafOf(t, conv.ID), "the question is the leaf while it is answered")
			e.model.release()
			o := e.wait(t, alice, res.Attempt.ID, 0)
			require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
			ans := e.answerOf(t, res.Attempt.ID)
			require.NotNil(t, ans.ParentID)
			assert.Equal(t, res.UserMessage.ID, *ans.ParentID)
			assert.Equal(t, 2*i+1, ans.Depth)
			assert.Equal(t, ans.ID, e.leafOf(t, conv.ID), "the answer is the leaf once saved")
			last = ans.ID
		}
		ms := e.requireTree(t, conv.ID)
		assert.Len(t, pathTo(t, ms, last), 6, "one path of six messages")
	})
}

// TestAskParent: a question asked below an earlier answer starts a branch
// there (a sibling of the question that followed that answer), becomes
// the current leaf and is answered on its branch; a parent that is a
// question works too.
func TestAskParent(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		first := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
		e.ask(t, alice, conv.ID, "那超过以后返回什么错误码？")
		a1 := e.answerOf(t, first.attempt.ID)

		e.model.hold() // the question is still the leaf when it is checked
		res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ParentID: &a1.ID, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
		require.NoError(t, err)
		require.NotNil(t, res.UserMessage.ParentID)
		assert.Equal(t, a1.ID, *res.UserMessage.ParentID)
		assert.Equal(t, 2, res.UserMessage.Depth)
		assert.Equal(t, res.UserMessage.ID, e.leafOf(t, conv.ID))
		e.model.release()
		o := e.wait(t, alice, res.Attempt.ID, 0)
		require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
		ans := e.answerOf(t, res.Attempt.ID)
		assert.Equal(t, ans.ID, e.leafOf(t, conv.ID))
		assert.Equal(t, 3, ans.Depth)

		// Below a question (its answer's sibling, in effect a follow-up).
		q1 := first.attempt.UserMessageID
		res, err = e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ParentID: &q1, ClientMessageID: uuid.NewString(), Question: "那退款呢？"})
		require.NoError(t, err)
		assert.Equal(t, 1, res.UserMessage.Depth)
		e.wait(t, alice, res.Attempt.ID, 0)

		ms := e.requireTree(t, conv.ID)
		children := map[uuid.UUID]int{}
		for _, m := range ms {
			if m.ParentID != nil {
				children[*m.ParentID]++
			}
		}
		assert.Equal(t, 2, children[a1.ID], "two questions follow the first answer")
		assert.Equal(t, 2, children[q1], "the first question has an answer and a question below it")
		assert.Len(t, ms, 8)
	})
}

// TestAskParentNotFound: a parent the viewer may not use is NOT_FOUND,
// byte-identical to a random id, whatever it is instead: a message of
// another conversation (the viewer's own, another user's, another
// tenant's), of a deleted conversation, or a random id. Nothing is
// written.
func TestAskParentNotFound(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		w := newForeignWorld(t, e)
		random := uuid.New()
		want := errJSON(t, func() error {
			_, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: w.conv, ParentID: &random, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
			return err
		}())
		assert.Equal(t, domain.CodeNotFound, code(func() error {
			_, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: w.conv, ParentID: &random, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
			return err
		}()))
		for name, id := range w.foreignMessages() {
			_, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: w.conv, ParentID: &id, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
			assert.Equal(t, want, errJSON(t, err), name)
		}
		before := len(e.messagesOf(t, w.conv))
		assert.Equal(t, 2, before, "nothing was written")
		e.requireTree(t, w.conv)
	})
}

// foreignWorld is alice's answered conversation, and messages she may not
// follow from it.
type foreignWorld struct {
	conv uuid.UUID
	// q and a are the conversation's question and answer.
	q, a uuid.UUID
	// other, bobs, foreign and deleted are messages of alice's other
	// conversation, of bob's, of another tenant's user, of alice's
	// deleted conversation.
	other, bobs, foreign, deleted uuid.UUID
	// foreignConv, bobConv and deletedConv are those conversations.
	foreignConv, bobConv, deletedConv uuid.UUID
}

func (w foreignWorld) foreignMessages() map[string]uuid.UUID {
	return map[string]uuid.UUID{
		"alice's other conversation": w.other,
		"bob's conversation":         w.bobs,
		"another tenant":             w.foreign,
		"deleted conversation":       w.deleted,
	}
}

func newForeignWorld(t *testing.T, e *env) foreignWorld {
	t.Helper()
	var w foreignWorld
	conv := e.conversation(t, alice)
	o := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
	w.conv, w.q, w.a = conv.ID, o.attempt.UserMessageID, e.answerOf(t, o.attempt.ID).ID

	other := e.conversation(t, alice)
	w.other = e.ask(t, alice, other.ID, "退款多久到账？").attempt.UserMessageID

	bc := e.conversation(t, bob)
	w.bobConv = bc.ID
	w.bobs = e.ask(t, bob, bc.ID, "退款多久到账？").attempt.UserMessageID

	fc, fm := foreignTenantConversation(t, e)
	w.foreignConv, w.foreign = fc, fm

	dc := e.conversation(t, alice)
	w.deletedConv = dc.ID
	w.deleted = e.ask(t, alice, dc.ID, "退款多久到账？").attempt.UserMessageID
	_, err := e.eng.DeleteConversation(as(alice), dc.ID, "")
	require.NoError(t, err)
	return w
}

// foreignTenantConversation is a conversation of another tenant's user
// called alice (stranger), answered once by the engine, and the id of its
// question.
func foreignTenantConversation(t *testing.T, e *env) (uuid.UUID, uuid.UUID) {
	t.Helper()
	sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	require.NoError(t, e.db.Client.Tenant.Create().SetID(stranger.TenantID).SetName("Globex").Exec(sys))
	demoKB := e.db.Client.KnowledgeBase.GetX(as(alice), e.kb)
	kb := e.db.Client.KnowledgeBase.Create().SetName("Globex help").
		SetEmbeddingModel(demoKB.EmbeddingModel).SetEmbeddingDimensions(demoKB.EmbeddingDimensions).SaveX(as(stranger))
	c, err := e.eng.CreateConversation(as(stranger), chat.CreateConversationInput{KnowledgeBaseID: &kb.ID})
	require.NoError(t, err)
	o := e.ask(t, stranger, c.ID, "上传文件最大是多少？")
	return c.ID, o.attempt.UserMessageID
}

// rounds asks n questions in conv and returns each round's question and
// answer.
func (e *env) rounds(t *testing.T, conv uuid.UUID, n int) (qs, ans []uuid.UUID) {
	t.Helper()
	questions := []string{"上传文件最大是多少？", "那超过以后返回什么错误码？", "退款多久到账？", "那退款呢？", "怎么重置密码？", "那发票呢？", "支持哪些文件格式？", "可以批量上传吗？"}
	for i := range n {
		o := e.ask(t, alice, conv, questions[i%len(questions)])
		require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
		qs = append(qs, o.attempt.UserMessageID)
		ans = append(ans, e.answerOf(t, o.attempt.ID).ID)
	}
	return qs, ans
}

// feeds follows a conversation's stream and its owner's feed.
type feeds struct {
	conv   <-chan feed.ConversationEvent
	viewer <-chan feed.ViewerEvent
}

func (e *env) follow(t *testing.T, fs *feed.Service, v *viewer.Viewer, conv uuid.UUID) feeds {
	t.Helper()
	ctx, cancel := context.WithTimeout(as(v), 30*time.Second)
	t.Cleanup(cancel)
	c, err := fs.SubscribeConversation(ctx, conv)
	require.NoError(t, err)
	f, err := fs.SubscribeViewer(ctx)
	require.NoError(t, err)
	return feeds{conv: c, viewer: f}
}

// branchSelected waits for BRANCH_SELECTED naming leaf on both feeds,
// and returns the conversation kinds seen before it.
func (f feeds) branchSelected(t *testing.T, conv, leaf uuid.UUID) []feed.ConversationEventKind {
	t.Helper()
	var kinds []feed.ConversationEventKind
	for ev := range f.conv {
		if ev.Kind == feed.ConversationBranchSelected {
			require.NotNil(t, ev.MessageID)
			if *ev.MessageID == leaf {
				break
			}
			continue
		}
		kinds = append(kinds, ev.Kind)
	}
	for ev := range f.viewer {
		if ev.Kind == feed.ViewerBranchSelected && ev.ConversationID == conv {
			require.NotNil(t, ev.MessageID)
			if *ev.MessageID == leaf {
				return kinds
			}
		}
	}
	t.Fatalf("no BRANCH_SELECTED of %s on the viewer feed", leaf)
	return nil
}

// TestEditAtDepth: editing round 2 of 4 (a question at depth 2) creates a
// sibling question under round 1's answer, with edited_from_id, the next
// sequence number and its PENDING attempt; it becomes the current leaf
// (MESSAGE_CREATED, ATTEMPT_UPDATED, BRANCH_SELECTED on the feeds), is
// answered on its own branch, and the old branch stays whole.
func TestEditAtDepth(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		qs, an := e.rounds(t, conv.ID, 4)
		f := e.follow(t, e.feed, alice, conv.ID)

		// Held, so that the edit is still the leaf when it is checked (a
		// fast answer would move the leaf on).
		e.model.hold()
		res, err := e.eng.Ask(as(alice), chat.AskInput{EditOf: ptrTo(qs[1]), ClientMessageID: uuid.NewString(), Question: "  那超过以后会怎样？ "})
		require.NoError(t, err)
		m := res.UserMessage
		assert.False(t, res.Deduplicated)
		assert.Equal(t, "那超过以后会怎样？", m.Content, "the question is checked like an ask's")
		require.NotNil(t, m.ParentID)
		assert.Equal(t, an[0], *m.ParentID, "a sibling of the edited question")
		assert.Equal(t, 2, m.Depth)
		require.NotNil(t, m.EditedFromID)
		assert.Equal(t, qs[1], *m.EditedFromID)
		assert.EqualValues(t, 9, m.SequenceNo)
		assert.Equal(t, attempt.StatusPENDING, res.Attempt.Status)
		assert.Equal(t, m.ID, res.Attempt.UserMessageID)
		assert.Equal(t, m.ID, e.leafOf(t, conv.ID))
		kinds := f.branchSelected(t, conv.ID, m.ID)
		assert.Contains(t, kinds, feed.ConversationMessageCreated)
		assert.Contains(t, kinds, feed.ConversationAttemptUpdated)

		e.model.release()
		o := e.wait(t, alice, res.Attempt.ID, 0)
		require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
		ans := e.answerOf(t, res.Attempt.ID)
		assert.Equal(t, ans.ID, e.leafOf(t, conv.ID), "the edit's answer is the leaf")
		assert.Equal(t, 3, ans.Depth)

		ms := e.requireTree(t, conv.ID)
		assert.Len(t, ms, 10)
		assert.Equal(t, []uuid.UUID{qs[0], an[0], m.ID, ans.ID}, pathTo(t, ms, ans.ID))
		assert.Equal(t, []uuid.UUID{qs[0], an[0], qs[1], an[1], qs[2], an[2], qs[3], an[3]}, pathTo(t, ms, an[3]),
			"the old branch stays readable")

		// An edit of the root question is a second root.
		res, err = e.eng.Ask(as(alice), chat.AskInput{EditOf: ptrTo(qs[0]), ClientMessageID: uuid.NewString(), Question: "单个文件能传多大？"})
		require.NoError(t, err)
		assert.Nil(t, res.UserMessage.ParentID)
		assert.Zero(t, res.UserMessage.Depth)
		e.wait(t, alice, res.Attempt.ID, 0)
		e.requireTree(t, conv.ID)
	})
}

// TestRetryAtDepth: regenerating round 1's answer of 3 rounds gives a
// second answer to the same question (retry_of the first attempt): the
// question becomes the current leaf (BRANCH_SELECTED), then the new
// answer; rounds 2 and 3 stay below the first answer.
func TestRetryAtDepth(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		e.ask(t, alice, conv.ID, "上传文件最大是多少？")
		first, err := e.db.Client.Attempt.Query().Where(attempt.ConversationID(conv.ID)).Only(sysCtx())
		require.NoError(t, err)
		qs, an := e.rounds(t, conv.ID, 2)
		q1, a1 := first.UserMessageID, e.answerOf(t, first.ID).ID
		f := e.follow(t, e.feed, alice, conv.ID)

		e.model.hold()
		res, err := e.eng.Retry(as(alice), chat.RetryInput{AttemptID: first.ID, ClientRequestID: uuid.NewString()})
		require.NoError(t, err)
		require.NotNil(t, res.Attempt.RetryOfID)
		assert.Equal(t, first.ID, *res.Attempt.RetryOfID)
		assert.Equal(t, q1, res.Attempt.UserMessageID)
		assert.Equal(t, q1, e.leafOf(t, conv.ID), "the retried question is the leaf while it is answered")
		f.branchSelected(t, conv.ID, q1)
		e.model.release()
		o := e.wait(t, alice, res.Attempt.ID, 0)
		require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
		ans := e.answerOf(t, res.Attempt.ID)
		require.NotNil(t, ans.ParentID)
		assert.Equal(t, q1, *ans.ParentID, "a sibling of the first answer")
		assert.Equal(t, 1, ans.Depth)
		assert.Equal(t, ans.ID, e.leafOf(t, conv.ID))

		ms := e.requireTree(t, conv.ID)
		assert.Equal(t, []uuid.UUID{q1, a1, qs[0], an[0], qs[1], an[1]}, pathTo(t, ms, an[1]))
		assert.Equal(t, []uuid.UUID{q1, ans.ID}, pathTo(t, ms, ans.ID))
	})
}

// TestSelectBranchBackAndForth: after an edit, selecting the old question
// continues to the old branch's newest leaf, selecting the edit to its
// answer, and selecting the root to the newest message of all; each
// selection bumps the version, is stored (read back) and is told on both
// feeds.
func TestSelectBranchBackAndForth(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		qs, an := e.rounds(t, conv.ID, 4)
		res, err := e.eng.Ask(as(alice), chat.AskInput{EditOf: ptrTo(qs[1]), ClientMessageID: uuid.NewString(), Question: "那超过以后会怎样？"})
		require.NoError(t, err)
		e.wait(t, alice, res.Attempt.ID, 0)
		edited := e.answerOf(t, res.Attempt.ID)
		f := e.follow(t, e.feed, alice, conv.ID)

		version := e.db.Client.Conversation.GetX(sysCtx(), conv.ID).Version
		for _, tc := range []struct {
			name     string
			pick     uuid.UUID
			wantLeaf uuid.UUID
		}{
			{"the old question", qs[1], an[3]},
			{"the edit", res.UserMessage.ID, edited.ID},
			{"an old answer in the middle", an[2], an[3]},
			{"the edit's answer", edited.ID, edited.ID},
			{"the root", qs[0], edited.ID},
		} {
			c, err := e.eng.SelectBranch(as(alice), conv.ID, tc.pick)
			require.NoError(t, err, tc.name)
			require.NotNil(t, c.CurrentLeafID)
			assert.Equal(t, tc.wantLeaf, *c.CurrentLeafID, tc.name)
			assert.Equal(t, tc.wantLeaf, e.leafOf(t, conv.ID), tc.name)
			assert.Greater(t, c.Version, version, tc.name)
			version = c.Version
			f.branchSelected(t, conv.ID, tc.wantLeaf)
		}

		// An ask follows the selected branch.
		_, err = e.eng.SelectBranch(as(alice), conv.ID, qs[1])
		require.NoError(t, err)
		o := e.ask(t, alice, conv.ID, "怎么重置密码？")
		q := e.db.Client.Message.GetX(sysCtx(), o.attempt.UserMessageID)
		require.NotNil(t, q.ParentID)
		assert.Equal(t, an[3], *q.ParentID)
		assert.Equal(t, 8, q.Depth)
		e.requireTree(t, conv.ID)
	})
}

// TestLeafAfterASwitchMidAnswer: an answer completes on its own branch; it
// becomes the current leaf when the user stayed on its question, and not
// when the user selected another branch while it ran (the selection is
// kept). Selecting while an answer runs is allowed.
func TestLeafAfterASwitchMidAnswer(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		qs, an := e.rounds(t, conv.ID, 2)

		e.model.hold()
		res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ParentID: &an[0], ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
		require.NoError(t, err)
		c, err := e.eng.SelectBranch(as(alice), conv.ID, qs[1])
		require.NoError(t, err, "selecting while an answer runs")
		assert.Equal(t, an[1], *c.CurrentLeafID)
		e.model.release()
		o := e.wait(t, alice, res.Attempt.ID, 0)
		require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
		ans := e.answerOf(t, res.Attempt.ID)
		assert.Equal(t, res.UserMessage.ID, *ans.ParentID, "the answer is on its own branch")
		assert.Equal(t, an[1], e.leafOf(t, conv.ID), "the selection is kept")

		// Switching back to the running branch before it completes: the
		// leaf is the question, and the answer then follows it.
		e.model.hold()
		res, err = e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ParentID: &an[0], ClientMessageID: uuid.NewString(), Question: "那退款呢？"})
		require.NoError(t, err)
		_, err = e.eng.SelectBranch(as(alice), conv.ID, qs[1])
		require.NoError(t, err)
		c, err = e.eng.SelectBranch(as(alice), conv.ID, res.UserMessage.ID)
		require.NoError(t, err)
		assert.Equal(t, res.UserMessage.ID, *c.CurrentLeafID)
		e.model.release()
		e.wait(t, alice, res.Attempt.ID, 0)
		assert.Equal(t, e.answerOf(t, res.Attempt.ID).ID, e.leafOf(t, conv.ID))
		e.requireTree(t, conv.ID)
	})
}

// TestSequenceNumbersStayGapFreeOnATree: asks, edits at several depths,
// retries, asks below chosen messages, a cancelled answer and refused
// requests (busy, not found, mismatched keys) leave sequence numbers 1…n
// without a gap, every parent in place and depths contiguous.
func TestSequenceNumbersStayGapFreeOnATree(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		qs, an := e.rounds(t, conv.ID, 3)
		key := uuid.NewString()
		e.model.hold()
		res, err := e.eng.Ask(as(alice), chat.AskInput{EditOf: ptrTo(qs[2]), ClientMessageID: key, Question: "支持哪些文件格式？"})
		require.NoError(t, err)
		// Refused meanwhile: busy, mismatched, not found.
		_, err = e.eng.Ask(as(alice), chat.AskInput{EditOf: ptrTo(qs[0]), ClientMessageID: uuid.NewString(), Question: "单个文件能传多大？"})
		assert.Equal(t, domain.CodeConversationBusy, code(err))
		_, err = e.eng.Ask(as(alice), chat.AskInput{EditOf: ptrTo(qs[2]), ClientMessageID: key, Question: "可以批量上传吗？"})
		assert.Equal(t, domain.CodeIdempotencyMismatch, code(err))
		_, err = e.eng.Ask(as(alice), chat.AskInput{EditOf: ptrTo(an[0]), ClientMessageID: uuid.NewString(), Question: "单个文件能传多大？"})
		assert.Equal(t, domain.CodeNotFound, code(err))
		e.model.release()
		e.wait(t, alice, res.Attempt.ID, 0)

		first, err := e.db.Client.Attempt.Query().Where(attempt.UserMessageID(qs[0])).Only(sysCtx())
		require.NoError(t, err)
		r, err := e.eng.Retry(as(alice), chat.RetryInput{AttemptID: first.ID, ClientRequestID: uuid.NewString()})
		require.NoError(t, err)
		e.wait(t, alice, r.Attempt.ID, 0)

		// A cancelled answer writes no message.
		e.model.hold()
		r, err = e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ParentID: &an[1], ClientMessageID: uuid.NewString(), Question: "上传文件最大是多少？"})
		require.NoError(t, err)
		_, err = e.eng.Cancel(as(alice), r.Attempt.ID)
		require.NoError(t, err)
		e.model.release()

		res, err = e.eng.Ask(as(alice), chat.AskInput{EditOf: &r.UserMessage.ID, ClientMessageID: uuid.NewString(), Question: "那发票呢？"})
		require.NoError(t, err)
		e.wait(t, alice, res.Attempt.ID, 0)
		e.ask(t, alice, conv.ID, "可以批量上传吗？")

		ms := e.requireTree(t, conv.ID)
		// 6 (rounds) + 2 (edit) + 1 (retry) + 1 (cancelled) + 2 (edit) + 2 (ask).
		assert.Len(t, ms, 14)
	})
}

// TestEditIsIdempotent: replaying an edit's key returns the original edit
// (deduplicated, no new row, no model call); the same key with another
// question, for another message, or used by an ask is
// IDEMPOTENCY_MISMATCH, and an edit cannot take an ask's key either: asks
// and edits share the conversation's keys.
func TestEditIsIdempotent(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		qs, _ := e.rounds(t, conv.ID, 2)
		key := uuid.NewString()
		res, err := e.eng.Ask(as(alice), chat.AskInput{EditOf: ptrTo(qs[1]), ClientMessageID: key, Question: "那超过以后会怎样？"})
		require.NoError(t, err)
		e.wait(t, alice, res.Attempt.ID, 0)
		calls := e.model.chatCalls()

		again, err := e.eng.Ask(as(alice), chat.AskInput{EditOf: ptrTo(qs[1]), ClientMessageID: key, Question: "那超过以后会怎样？"})
		require.NoError(t, err)
		assert.True(t, again.Deduplicated)
		assert.Equal(t, res.UserMessage.ID, again.UserMessage.ID)
		assert.Equal(t, res.Attempt.ID, again.Attempt.ID)
		assert.Equal(t, attempt.StatusCOMPLETED, again.Attempt.Status)
		assert.Equal(t, calls, e.model.chatCalls(), "a replay calls no model")

		_, err = e.eng.Ask(as(alice), chat.AskInput{EditOf: ptrTo(qs[1]), ClientMessageID: key, Question: "那超过以后怎么办？"})
		assert.Equal(t, domain.CodeIdempotencyMismatch, code(err), "another question")
		_, err = e.eng.Ask(as(alice), chat.AskInput{EditOf: ptrTo(qs[0]), ClientMessageID: key, Question: "那超过以后会怎样？"})
		assert.Equal(t, domain.CodeIdempotencyMismatch, code(err), "another message")
		_, err = e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: key, Question: "那超过以后会怎样？"})
		assert.Equal(t, domain.CodeIdempotencyMismatch, code(err), "an ask with the edit's key")

		askKey := uuid.NewString()
		o, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: askKey, Question: "退款多久到账？"})
		require.NoError(t, err)
		e.wait(t, alice, o.Attempt.ID, 0)
		_, err = e.eng.Ask(as(alice), chat.AskInput{EditOf: ptrTo(qs[1]), ClientMessageID: askKey, Question: "退款多久到账？"})
		assert.Equal(t, domain.CodeIdempotencyMismatch, code(err), "an edit with an ask's key")
		_, err = e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ParentID: &qs[0], ClientMessageID: askKey, Question: "退款多久到账？"})
		assert.Equal(t, domain.CodeIdempotencyMismatch, code(err), "an ask below another parent with the key")
		replay, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ParentID: o.UserMessage.ParentID, ClientMessageID: askKey, Question: "退款多久到账？"})
		require.NoError(t, err)
		assert.True(t, replay.Deduplicated, "the same parent replays")

		ms := e.requireTree(t, conv.ID)
		assert.Len(t, ms, 8)
	})
}

// TestBusyOnEveryBranch: while one answer runs, on a branch of its own,
// no ask, ask below another message, edit or retry is accepted on any
// other branch, on any of three engine instances sharing one database and
// broker (CONVERSATION_BUSY naming the running attempt); selecting a branch
// is accepted on every instance, and its BRANCH_SELECTED reaches the feeds
// followed on the others. Twelve requests of all kinds sent at once from
// the three instances create exactly one attempt, and the tree stays
// whole.
func TestBusyOnEveryBranch(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		in1, in2 := e.newInstanceDeps(t, chat.Config{}, sharedBroker(e)), e.newInstanceDeps(t, chat.Config{}, sharedBroker(e))
		engines := []*chat.Engine{e.eng, in1.eng, in2.eng}
		feeds := []*feed.Service{e.feed, in1.feed, in2.feed}
		conv := e.conversation(t, alice)
		qs, an := e.rounds(t, conv.ID, 3)
		first, err := e.db.Client.Attempt.Query().Where(attempt.UserMessageID(qs[0])).Only(sysCtx())
		require.NoError(t, err)

		e.model.hold()
		running, err := engines[1].Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ParentID: &an[0], ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
		require.NoError(t, err)
		tries := map[string]func(eng *chat.Engine) error{
			"ask": func(eng *chat.Engine) error {
				_, err := eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: "那退款呢？"})
				return err
			},
			"ask below another answer": func(eng *chat.Engine) error {
				_, err := eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ParentID: &an[2], ClientMessageID: uuid.NewString(), Question: "那退款呢？"})
				return err
			},
			"edit on another branch": func(eng *chat.Engine) error {
				_, err := eng.Ask(as(alice), chat.AskInput{EditOf: ptrTo(qs[2]), ClientMessageID: uuid.NewString(), Question: "那退款呢？"})
				return err
			},
			"retry on another branch": func(eng *chat.Engine) error {
				_, err := eng.Retry(as(alice), chat.RetryInput{AttemptID: first.ID, ClientRequestID: uuid.NewString()})
				return err
			},
		}
		for i, eng := range engines {
			for name, try := range tries {
				err := try(eng)
				assert.Equal(t, domain.CodeConversationBusy, code(err), "instance %d: %s", i, name)
				assert.Equal(t, running.Attempt.ID.String(), domain.ErrorDetails(err)["attemptId"], "instance %d: %s", i, name)
			}
		}
		// Selecting is allowed while the answer runs, and crosses instances.
		for i, eng := range engines {
			watcher := feeds[(i+1)%len(feeds)]
			f := e.follow(t, watcher, alice, conv.ID)
			pick := qs[i%len(qs)]
			c, err := eng.SelectBranch(as(alice), conv.ID, pick)
			require.NoError(t, err, "instance %d", i)
			f.branchSelected(t, conv.ID, *c.CurrentLeafID)
		}
		e.model.release()
		e.wait(t, alice, running.Attempt.ID, 0)

		// A burst of every kind of request from the three instances.
		e.model.hold()
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins, busy := 0, 0
		for _, eng := range engines {
			for _, try := range tries {
				wg.Add(1)
				go func() {
					defer wg.Done()
					err := try(eng)
					mu.Lock()
					defer mu.Unlock()
					if err == nil {
						wins++
					} else if code(err) == domain.CodeConversationBusy {
						busy++
					} else {
						t.Errorf("unexpected error: %v", err)
					}
				}()
			}
		}
		wg.Wait()
		assert.Equal(t, 1, wins, "exactly one request wins")
		assert.Equal(t, 11, busy)
		pending, err := e.db.Client.Attempt.Query().
			Where(attempt.ConversationID(conv.ID), attempt.StatusEQ(attempt.StatusPENDING)).All(sysCtx())
		require.NoError(t, err)
		require.Len(t, pending, 1)
		e.model.release()
		e.wait(t, alice, pending[0].ID, 0)
		e.requireTree(t, conv.ID)
	})
}

// TestBranchWritesNotFound: editMessage, selectBranch and askParent's
// parent answer NOT_FOUND, byte-identical to a random id, for a message or
// conversation of another tenant (whose user has the same id), another
// user, a deleted conversation, (selectBranch, askParent) a message of the
// viewer's other conversation, and (editMessage) an answer. Nothing
// changes.
func TestBranchWritesNotFound(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		w := newForeignWorld(t, e)
		random := uuid.New()
		leaf := e.leafOf(t, w.conv)

		// editMessage: one error for every message that is not the
		// viewer's own question.
		edit := func(id uuid.UUID) error {
			_, err := e.eng.Ask(as(alice), chat.AskInput{EditOf: &id, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
			return err
		}
		want := errJSON(t, edit(random))
		assert.Equal(t, domain.CodeNotFound, code(edit(random)))
		cases := w.foreignMessages()
		delete(cases, "alice's other conversation") // hers to edit, there
		cases["an answer"] = w.a
		for name, id := range cases {
			assert.Equal(t, want, errJSON(t, edit(id)), "edit: %s", name)
		}

		// selectBranch: one error for every conversation the viewer does
		// not own, one for every message not in the conversation.
		sel := func(conv, msg uuid.UUID) error {
			_, err := e.eng.SelectBranch(as(alice), conv, msg)
			return err
		}
		wantConv := errJSON(t, sel(uuid.New(), w.q))
		assert.Equal(t, domain.CodeNotFound, code(sel(uuid.New(), w.q)))
		for name, c := range map[string]uuid.UUID{"bob's": w.bobConv, "another tenant's": w.foreignConv, "deleted": w.deletedConv} {
			assert.Equal(t, wantConv, errJSON(t, sel(c, w.q)), "select in %s conversation", name)
		}
		wantMsg := errJSON(t, sel(w.conv, random))
		assert.Equal(t, domain.CodeNotFound, code(sel(w.conv, random)))
		for name, id := range w.foreignMessages() {
			assert.Equal(t, wantMsg, errJSON(t, sel(w.conv, id)), "select: %s", name)
		}

		// askParent: a conversation the viewer does not own is Ask's
		// NOT_FOUND; a parent outside the conversation, the parent's.
		askIn := func(conv uuid.UUID, parent uuid.UUID) error {
			_, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv, ParentID: &parent, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
			return err
		}
		wantAskConv := errJSON(t, askIn(uuid.New(), w.q))
		for name, c := range map[string]uuid.UUID{"bob's": w.bobConv, "another tenant's": w.foreignConv, "deleted": w.deletedConv} {
			assert.Equal(t, wantAskConv, errJSON(t, askIn(c, w.q)), "ask in %s conversation", name)
		}
		wantParent := errJSON(t, askIn(w.conv, random))
		for name, id := range w.foreignMessages() {
			assert.Equal(t, wantParent, errJSON(t, askIn(w.conv, id)), "parent: %s", name)
		}

		assert.Len(t, e.messagesOf(t, w.conv), 2, "nothing was written")
		assert.Equal(t, leaf, e.leafOf(t, w.conv), "the leaf did not move")
		assert.Len(t, e.messagesOf(t, w.bobConv), 2)
	})
}

// TestSupportAndAdminsWriteNoBranch: a support agent with an approved
// grant, and a tenant admin, can read the conversation but neither edit,
// select a branch, regenerate nor ask below a message in it: NOT_FOUND,
// as for every write of another user's conversation. Nothing changes.
func TestSupportAndAdminsWriteNoBranch(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		w := grantedWorld(t, e, false)
		q := w.att.UserMessageID
		leaf := e.leafOf(t, w.conv)
		for _, v := range []*viewer.Viewer{sam, admin} {
			_, err := e.eng.Conversation(as(v), w.conv)
			require.NoError(t, err, "%s reads the conversation", v.UserID)
			_, err = e.eng.Ask(as(v), chat.AskInput{EditOf: &q, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
			assert.Equal(t, domain.CodeNotFound, code(err), "%s: edit", v.UserID)
			_, err = e.eng.SelectBranch(as(v), w.conv, q)
			assert.Equal(t, domain.CodeNotFound, code(err), "%s: select", v.UserID)
			_, err = e.eng.Retry(as(v), chat.RetryInput{AttemptID: w.att.ID, ClientRequestID: uuid.NewString()})
			assert.Equal(t, domain.CodeNotFound, code(err), "%s: retry", v.UserID)
			_, err = e.eng.Ask(as(v), chat.AskInput{ConversationID: w.conv, ParentID: &q, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
			assert.Equal(t, domain.CodeNotFound, code(err), "%s: ask below a message", v.UserID)
		}
		assert.Len(t, e.messagesOf(t, w.conv), 2, "nothing was written")
		assert.Equal(t, leaf, e.leafOf(t, w.conv))
	})
}

// TestDeleteRestorePurgeCoverEveryBranch: deleting a conversation with
// several branches hides all of them (edit and select are NOT_FOUND);
// restoring it brings every branch back with its current leaf; the purge
// after retention removes every message of every branch.
func TestDeleteRestorePurgeCoverEveryBranch(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		qs, an := e.rounds(t, conv.ID, 3)
		res, err := e.eng.Ask(as(alice), chat.AskInput{EditOf: ptrTo(qs[1]), ClientMessageID: uuid.NewString(), Question: "那超过以后会怎样？"})
		require.NoError(t, err)
		e.wait(t, alice, res.Attempt.ID, 0)
		first, err := e.db.Client.Attempt.Query().Where(attempt.UserMessageID(qs[0])).Only(sysCtx())
		require.NoError(t, err)
		r, err := e.eng.Retry(as(alice), chat.RetryInput{AttemptID: first.ID, ClientRequestID: uuid.NewString()})
		require.NoError(t, err)
		e.wait(t, alice, r.Attempt.ID, 0)
		_, err = e.eng.SelectBranch(as(alice), conv.ID, qs[2])
		require.NoError(t, err)
		before := e.requireTree(t, conv.ID)
		require.Len(t, before, 9)
		leaf := e.leafOf(t, conv.ID)
		assert.Equal(t, an[2], leaf)

		_, err = e.eng.DeleteConversation(as(alice), conv.ID, "")
		require.NoError(t, err)
		_, err = e.eng.Ask(as(alice), chat.AskInput{EditOf: ptrTo(qs[1]), ClientMessageID: uuid.NewString(), Question: "那超过以后会怎样？"})
		assert.Equal(t, domain.CodeNotFound, code(err), "edit in a deleted conversation")
		_, err = e.eng.SelectBranch(as(alice), conv.ID, qs[1])
		assert.Equal(t, domain.CodeNotFound, code(err), "select in a deleted conversation")
		n, err := e.db.Client.Message.Query().Where(message.ConversationID(conv.ID)).Count(as(alice))
		require.NoError(t, err)
		assert.Zero(t, n, "no branch is readable")

		_, err = e.eng.RestoreConversation(as(alice), conv.ID)
		require.NoError(t, err)
		after := e.requireTree(t, conv.ID)
		assert.Equal(t, len(before), len(after), "every branch is back")
		n, err = e.db.Client.Message.Query().Where(message.ConversationID(conv.ID)).Count(as(alice))
		require.NoError(t, err)
		assert.Equal(t, len(before), n, "and readable")
		assert.Equal(t, leaf, e.leafOf(t, conv.ID), "with its current leaf")
		_, err = e.eng.SelectBranch(as(alice), conv.ID, res.UserMessage.ID)
		require.NoError(t, err)

		_, err = e.eng.DeleteConversation(as(alice), conv.ID, "")
		require.NoError(t, err)
		e.clock.advance(31 * 24 * time.Hour)
		_, err = e.eng.PurgeOnce(context.Background())
		require.NoError(t, err)
		assert.Empty(t, e.messagesOf(t, conv.ID), "every branch is purged")
		na, err := e.db.Client.Attempt.Query().Where(attempt.ConversationID(conv.ID)).Count(sysCtx())
		require.NoError(t, err)
		assert.Zero(t, na)
	})
}

// TestTreeWritesAreOneStatement: an ask below a chosen message and an edit
// are an ask's one transaction (on PostgreSQL BEGIN, the read, one
// data-modifying statement, COMMIT; the parent's depth comes with the
// read); an edit first reads the question it edits, outside it.
func TestTreeWritesAreOneStatement(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, raw *store.DB) {
		db, log := tracedDB(raw)
		limiter := func(d *chat.Deps) { d.AskLimiter = askrate.NewDBLimiter(db, nil) }
		e := newEnvDeps(t, db, nil, limiter, func(c *chat.Config, _ *domain.TenantSettings) { c.CheckpointInterval = time.Hour })
		conv := e.conversation(t, alice)
		qs, an := e.rounds(t, conv.ID, 2)
		chat.WaitIdle(e.eng)
		release := chat.HoldRuns(e.eng)

		log.take()
		r, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ParentID: &an[0], ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
		require.NoError(t, err)
		require.Equal(t, inOneTx(askTxStatements[raw.Dialect], "COMMIT"), log.take(), "ask below a message")
		release()
		e.wait(t, alice, r.Attempt.ID, 0)
		chat.WaitIdle(e.eng)

		log.take()
		r, err = e.eng.Ask(as(alice), chat.AskInput{EditOf: ptrTo(qs[1]), ClientMessageID: uuid.NewString(), Question: "那超过以后会怎样？"})
		require.NoError(t, err)
		require.Equal(t, append([]string{"autocommit"}, inOneTx(askTxStatements[raw.Dialect], "COMMIT")...), log.take(), "edit")
		release()
		e.wait(t, alice, r.Attempt.ID, 0)
		chat.WaitIdle(e.eng)
		e.requireTree(t, conv.ID)
	})
}

// legacy turns conversation id back into rows written before message
// trees: no parents, depth 0, no current leaf.
func (e *env) legacy(t *testing.T, id uuid.UUID) {
	t.Helper()
	q1, q2 := `UPDATE messages SET parent_id = NULL, depth = 0 WHERE conversation_id = ?`,
		`UPDATE conversations SET current_leaf_id = NULL WHERE id = ?`
	if e.db.Dialect == dialect.Postgres {
		q1, q2 = strings.Replace(q1, "?", "$1", 1), strings.Replace(q2, "?", "$1", 1)
	}
	_, err := e.db.SQL.ExecContext(context.Background(), q1, id)
	require.NoError(t, err)
	_, err = e.db.SQL.ExecContext(context.Background(), q2, id)
	require.NoError(t, err)
	require.Equal(t, uuid.Nil, e.leafOf(t, id))
}

// TestTreeWritesBackfillLegacyConversations: a conversation written before
// message trees (messages without parents, no current leaf) is made a
// single path (internal/chat/treebackfill) before an ask, an ask below a
// message, an edit, a retry or a selection extends it, so the write lands
// on the backfilled path and the old messages get their parents; without
// it the write would set the leaf first and the backfill would take the
// conversation for done.
func TestTreeWritesBackfillLegacyConversations(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		for _, tc := range []struct {
			name string
			// write extends the legacy conversation of two rounds and
			// returns the new leaf's expected parent and depth.
			write func(t *testing.T, conv uuid.UUID, qs, an []uuid.UUID) (parent *uuid.UUID, depth int)
		}{
			{"ask", func(t *testing.T, conv uuid.UUID, _, an []uuid.UUID) (*uuid.UUID, int) {
				e.ask(t, alice, conv, "退款多久到账？")
				return &an[1], 4
			}},
			{"ask below a message", func(t *testing.T, conv uuid.UUID, _, an []uuid.UUID) (*uuid.UUID, int) {
				r, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv, ParentID: &an[0], ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
				require.NoError(t, err)
				e.wait(t, alice, r.Attempt.ID, 0)
				return &an[0], 2
			}},
			{"edit", func(t *testing.T, conv uuid.UUID, qs, an []uuid.UUID) (*uuid.UUID, int) {
				r, err := e.eng.Ask(as(alice), chat.AskInput{EditOf: ptrTo(qs[1]), ClientMessageID: uuid.NewString(), Question: "那超过以后会怎样？"})
				require.NoError(t, err)
				e.wait(t, alice, r.Attempt.ID, 0)
				return &an[0], 2
			}},
			{"retry", func(t *testing.T, conv uuid.UUID, qs, an []uuid.UUID) (*uuid.UUID, int) {
				a, err := e.db.Client.Attempt.Query().Where(attempt.UserMessageID(qs[1])).Only(sysCtx())
				require.NoError(t, err)
				r, err := e.eng.Retry(as(alice), chat.RetryInput{AttemptID: a.ID, ClientRequestID: uuid.NewString()})
				require.NoError(t, err)
				e.wait(t, alice, r.Attempt.ID, 0)
				assert.Equal(t, qs[1], *e.answerOf(t, r.Attempt.ID).ParentID)
				return &an[0], 2 // the retried question's place
			}},
			{"select", func(t *testing.T, conv uuid.UUID, qs, an []uuid.UUID) (*uuid.UUID, int) {
				c, err := e.eng.SelectBranch(as(alice), conv, qs[0])
				require.NoError(t, err)
				assert.Equal(t, an[1], *c.CurrentLeafID, "the newest message below the root")
				return &qs[1], 3
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				conv := e.conversation(t, alice)
				qs, an := e.rounds(t, conv.ID, 2)
				e.legacy(t, conv.ID)
				parent, depth := tc.write(t, conv.ID, qs, an)
				ms := e.requireTree(t, conv.ID)
				leaf := ms[len(ms)-1]
				if tc.name != "select" {
					leaf = e.db.Client.Message.GetX(sysCtx(), e.leafOf(t, conv.ID))
					// The leaf is the new answer: its question is below parent.
					q := e.db.Client.Message.GetX(sysCtx(), *leaf.ParentID)
					require.NotNil(t, q.ParentID)
					assert.Equal(t, *parent, *q.ParentID)
					assert.Equal(t, depth, q.Depth)
				} else {
					assert.Equal(t, *parent, *leaf.ParentID)
					assert.Equal(t, depth, leaf.Depth)
				}
				assert.Equal(t, []uuid.UUID{qs[0], an[0], qs[1], an[1]}, pathTo(t, ms, an[1]), "the old rounds are one path")
			})
		}
	})
}
