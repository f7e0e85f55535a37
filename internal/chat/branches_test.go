package chat_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
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
			res, err := e.eng.Ask(as(alice), conv.ID, uuid.NewString(), q)
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

		res, err := e.eng.AskParent(as(alice), conv.ID, &a1.ID, uuid.NewString(), "退款多久到账？")
		require.NoError(t, err)
		require.NotNil(t, res.UserMessage.ParentID)
		assert.Equal(t, a1.ID, *res.UserMessage.ParentID)
		assert.Equal(t, 2, res.UserMessage.Depth)
		assert.Equal(t, res.UserMessage.ID, e.leafOf(t, conv.ID))
		o := e.wait(t, alice, res.Attempt.ID, 0)
		require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
		ans := e.answerOf(t, res.Attempt.ID)
		assert.Equal(t, ans.ID, e.leafOf(t, conv.ID))
		assert.Equal(t, 3, ans.Depth)

		// Below a question (its answer's sibling, in effect a follow-up).
		q1 := first.attempt.UserMessageID
		res, err = e.eng.AskParent(as(alice), conv.ID, &q1, uuid.NewString(), "那退款呢？")
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
			_, err := e.eng.AskParent(as(alice), w.conv, &random, uuid.NewString(), "退款多久到账？")
			return err
		}())
		assert.Equal(t, domain.CodeNotFound, code(func() error {
			_, err := e.eng.AskParent(as(alice), w.conv, &random, uuid.NewString(), "退款多久到账？")
			return err
		}()))
		for name, id := range w.foreignMessages() {
			_, err := e.eng.AskParent(as(alice), w.conv, &id, uuid.NewString(), "退款多久到账？")
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
