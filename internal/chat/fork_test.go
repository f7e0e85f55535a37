package chat_test

import (
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/chat/tree"
	"github.com/ragchat/ragchat/internal/chat/treebackfill"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/sourceauth"
	"github.com/ragchat/ragchat/internal/support"
	"github.com/ragchat/ragchat/internal/viewer"
)

// forkRounds are the questions of the conversations the fork tests fork.
var forkRounds = []string{
	"上传文件最大是多少？",
	"支持哪些文件格式？",
	"会话会保存多久？",
	"怎么删除一个会话？",
}

// treeConversation asks questions in a new conversation of v and returns
// it with its current path, root first. Asked before message trees the
// conversation is a line without parents, which the backfill turns into
// the same path the engine writes; once the ask writes the tree, the
// backfill leaves it alone.
func treeConversation(t *testing.T, e *env, v *viewer.Viewer, questions ...string) (*ent.Conversation, []*ent.Message) {
	t.Helper()
	conv := e.conversation(t, v)
	for _, q := range questions {
		o := e.ask(t, v, conv.ID, q)
		require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
	}
	require.NoError(t, treebackfill.Conversation(t.Context(), e.db.Client, conv.ID))
	conv, err := e.db.Client.Conversation.Get(as(v), conv.ID)
	require.NoError(t, err)
	require.NotNil(t, conv.CurrentLeafID)
	return conv, pathOf(t, e, v, conv.ID, *conv.CurrentLeafID)
}

// pathOf reads the path root…id of conversation conv as v.
func pathOf(t *testing.T, e *env, v *viewer.Viewer, conv, id uuid.UUID) []*ent.Message {
	t.Helper()
	path, err := e.db.Client.Message.Query().
		Where(message.ConversationID(conv), tree.Path(id, 0)).
		Order(ent.Asc(message.FieldDepth)).
		All(as(v))
	require.NoError(t, err)
	return path
}

// addEdit writes, as the engine's edit does, a sibling of the USER message
// of (question) with an answered attempt, and returns the new question and
// answer: the branch of an edit, made without the edit mutation so that
// the fork is tested on its own.
func addEdit(t *testing.T, e *env, of *ent.Message, question, answer string) (*ent.Message, *ent.Message) {
	t.Helper()
	require.Equal(t, message.RoleUSER, of.Role)
	ctx := viewer.SystemJobContext(t.Context(), viewer.JobProvision)
	tx, err := e.db.Client.Tx(ctx)
	require.NoError(t, err)
	conv, err := tx.Conversation.UpdateOneID(of.ConversationID).AddLastSequenceNo(2).AddVersion(1).Save(ctx)
	require.NoError(t, err)
	q, err := tx.Message.Create().
		SetTenantID(of.TenantID).SetOwnerID(of.OwnerID).SetConversationID(of.ConversationID).
		SetNillableParentID(of.ParentID).SetDepth(of.Depth).SetEditedFromID(of.ID).
		SetSequenceNo(conv.LastSequenceNo - 1).SetRole(message.RoleUSER).SetContent(question).
		Save(ctx)
	require.NoError(t, err)
	a, err := tx.Attempt.Create().
		SetTenantID(of.TenantID).SetOwnerID(of.OwnerID).SetConversationID(of.ConversationID).
		SetUserMessageID(q.ID).SetStatus(attempt.StatusCOMPLETED).SetOriginalQuestion(question).
		SetAnswer(answer).SetModel("edit-model").SetPromptTokens(11).SetCompletionTokens(7).SetTotalTokens(18).
		SetStartedAt(e.clock.now()).SetCompletedAt(e.clock.now()).
		Save(ctx)
	require.NoError(t, err)
	ans, err := tx.Message.Create().
		SetTenantID(of.TenantID).SetOwnerID(of.OwnerID).SetConversationID(of.ConversationID).
		SetParentID(q.ID).SetDepth(of.Depth + 1).
		SetSequenceNo(conv.LastSequenceNo).SetRole(message.RoleASSISTANT).SetContent(answer).
		SetAttemptID(a.ID).SetModel("edit-model").SetPromptTokens(11).SetCompletionTokens(7).
		Save(ctx)
	require.NoError(t, err)
	require.NoError(t, tx.Commit())
	return q, ans
}

// checkForkOf asserts that fork is a faithful copy of path: same roles and
// contents, sequence numbers 1…n, parents chained, depths kept, current
// leaf the copy of the path's last message, answers with COMPLETED
// attempts that carry the original's answer, model and tokens.
func checkForkOf(t *testing.T, e *env, v *viewer.Viewer, fork *ent.Conversation, path []*ent.Message) []*ent.Message {
	t.Helper()
	ctx := as(v)
	got, err := e.db.Client.Message.Query().
		Where(message.ConversationID(fork.ID)).
		Order(ent.Asc(message.FieldSequenceNo)).
		All(ctx)
	require.NoError(t, err)
	require.Len(t, got, len(path), "the fork holds the path and nothing else")
	require.NotNil(t, fork.CurrentLeafID)
	assert.Equal(t, got[len(got)-1].ID, *fork.CurrentLeafID, "the leaf is the copy of the forked message")
	require.NotNil(t, fork.ForkedFromMessageID)
	assert.Equal(t, path[len(path)-1].ID, *fork.ForkedFromMessageID)
	assert.Equal(t, int64(len(path)), fork.LastSequenceNo)
	for i, m := range got {
		o := path[i]
		assert.NotEqual(t, o.ID, m.ID, "new rows")
		assert.Equal(t, int64(i+1), m.SequenceNo)
		assert.Equal(t, o.Role, m.Role)
		assert.Equal(t, o.Content, m.Content)
		assert.Equal(t, o.Depth, m.Depth, "depth kept")
		assert.Equal(t, i, m.Depth, "a path is contiguous in depth")
		assert.Nil(t, m.ClientMessageID, "the fork's messages carry no idempotency key of the source")
		if i == 0 {
			assert.Nil(t, m.ParentID)
		} else {
			require.NotNil(t, m.ParentID)
			assert.Equal(t, got[i-1].ID, *m.ParentID, "parents chained")
		}
		if m.Role != message.RoleASSISTANT {
			continue
		}
		require.NotNil(t, m.AttemptID, "a copied answer has an attempt")
		a, err := e.db.Client.Attempt.Get(ctx, *m.AttemptID)
		require.NoError(t, err)
		oa, err := e.db.Client.Attempt.Get(ctx, *o.AttemptID)
		require.NoError(t, err)
		assert.Equal(t, fork.ID, a.ConversationID)
		assert.Equal(t, got[i-1].ID, a.UserMessageID, "the attempt answers the copied question")
		assert.Equal(t, attempt.StatusCOMPLETED, a.Status)
		assert.Equal(t, oa.Answer, a.Answer)
		assert.Equal(t, oa.Model, a.Model)
		assert.Equal(t, oa.PromptTokens, a.PromptTokens)
		assert.Equal(t, oa.CompletionTokens, a.CompletionTokens)
		assert.Equal(t, oa.TotalTokens, a.TotalTokens)
		assert.Nil(t, a.ClientRequestID)
	}
	return got
}

// TestForkCopiesOnlyThePath: a conversation of 4 rounds whose round 2 was
// edited (and answered) is a tree of 10 messages; forking the edited
// branch's answer copies only root → edit (4 messages), forking the old
// branch's last answer copies its 8, and neither carries the other
// branch. The source conversation is unchanged, the owner's feed learns of
// the fork, and the fork keeps the title, knowledge base and strategy.
func TestForkCopiesOnlyThePath(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := as(alice)
		conv, main := treeConversation(t, e, alice, forkRounds...)
		require.Len(t, main, 8)
		strategy := string(domain.StrategyPrioritized)
		conv, err := e.eng.SetConversationHistoryStrategy(ctx, conv.ID, &strategy)
		require.NoError(t, err)
		editQ, editA := addEdit(t, e, main[2], "编辑后的第二个问题：能上传压缩包吗？", "编辑分支的回答")
		n, err := e.db.Client.Message.Query().Where(message.ConversationID(conv.ID)).Count(ctx)
		require.NoError(t, err)
		require.Equal(t, 10, n)

		viewerEvents, err := e.feed.SubscribeViewer(ctx)
		require.NoError(t, err)

		// The edited branch is not the current one: it forks all the same.
		branch := pathOf(t, e, alice, conv.ID, editA.ID)
		require.Len(t, branch, 4)
		require.Equal(t, editQ.ID, branch[2].ID)
		fork, err := e.forks.Fork(ctx, editA.ID, "")
		require.NoError(t, err)
		assert.NotEqual(t, conv.ID, fork.ID)
		assert.Equal(t, conv.Title, fork.Title)
		assert.Equal(t, conv.KnowledgeBaseID, fork.KnowledgeBaseID)
		assert.Equal(t, alice.UserID, fork.UserID)
		assert.Equal(t, conv.TenantID, fork.TenantID)
		require.NotNil(t, fork.HistoryStrategy)
		assert.Equal(t, strategy, string(*fork.HistoryStrategy))
		copied := checkForkOf(t, e, alice, fork, branch)
		for _, m := range copied {
			for _, other := range main[2:] {
				assert.NotEqual(t, other.Content, m.Content, "nothing of the other branch")
			}
		}
		ev := nextViewerEvent(t, viewerEvents)
		assert.Equal(t, feed.ViewerConversationCreated, ev.Kind)
		assert.Equal(t, fork.ID, ev.ConversationID)

		whole, err := e.forks.Fork(ctx, main[7].ID, "")
		require.NoError(t, err)
		copied = checkForkOf(t, e, alice, whole, main)
		for _, m := range copied {
			assert.NotEqual(t, editQ.Content, m.Content)
			assert.NotEqual(t, editA.Content, m.Content)
		}
		// A fork of a question ends at the question.
		mid, err := e.forks.Fork(ctx, main[4].ID, "")
		require.NoError(t, err)
		checkForkOf(t, e, alice, mid, main[:5])

		n, err = e.db.Client.Message.Query().Where(message.ConversationID(conv.ID)).Count(ctx)
		require.NoError(t, err)
		assert.Equal(t, 10, n, "the source is unchanged")
		src, err := e.eng.Conversation(ctx, conv.ID)
		require.NoError(t, err)
		assert.Equal(t, *conv.CurrentLeafID, *src.CurrentLeafID)
	})
}

// nextViewerEvent reads the next event of a viewer feed.
func nextViewerEvent(t *testing.T, feed <-chan feed.ViewerEvent) feed.ViewerEvent {
	t.Helper()
	ev, ok := <-feed
	require.True(t, ok, "the feed ended")
	return ev
}

// TestForkReauthorisesSources: olga's answer cites the restricted runbook;
// after the runbook's access list drops her group, a fork copies that
// source without its chunk, document, snippet or title (unavailable for
// good: restoring the access list later does not bring it back in the
// fork, while the original's snapshot shows again), and keeps the others.
func TestForkReauthorisesSources(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := as(olga)
		_, path := treeConversation(t, e, olga, "上传服务的内部限流阈值是多少？")
		require.Len(t, path, 2)
		orig := *path[1].AttemptID
		opsDoc := e.db.Client.Document.Query().Where(document.VisibilityEQ(document.VisibilityRESTRICTED)).OnlyX(as(admin))
		views, err := sourceauth.OfAttempt(ctx, e.db.Client, orig)
		require.NoError(t, err)
		ops, others := 0, 0
		for _, v := range views {
			require.True(t, v.Available)
			if *v.Source.DocumentID == opsDoc.ID {
				ops++
			} else {
				others++
			}
		}
		require.Positive(t, ops, "the answer relied on the restricted runbook")

		_, err = e.svc.SetACL(as(admin), opsDoc.ID, knowledge.ACL{Visibility: "RESTRICTED", Groups: []string{"sre"}})
		require.NoError(t, err)
		fork, err := e.forks.Fork(ctx, path[1].ID, "")
		require.NoError(t, err)
		copied := checkForkOf(t, e, olga, fork, path)
		forkAtt := *copied[1].AttemptID
		sys := viewer.SystemJobContext(t.Context(), viewer.JobPurge)
		rows, err := e.db.Client.Source.Query().Where(source.AttemptID(forkAtt)).Order(ent.Asc(source.FieldRank)).All(sys)
		require.NoError(t, err)
		require.Len(t, rows, len(views), "every source keeps its place (labels stay aligned with the citations)")
		for i, r := range rows {
			o := views[i].Source
			assert.Equal(t, o.Label, r.Label)
			assert.Equal(t, o.Rank, r.Rank)
			assert.Equal(t, olga.UserID, r.OwnerID)
			if *o.DocumentID == opsDoc.ID {
				assert.Nil(t, r.ChunkID, "an unreadable source is copied without its chunk")
				assert.Nil(t, r.DocumentID)
				assert.Empty(t, r.Snippet, "nor its text")
				assert.Empty(t, r.DocumentTitle)
			} else {
				require.NotNil(t, r.ChunkID)
				assert.Equal(t, *o.ChunkID, *r.ChunkID)
				assert.Equal(t, o.Snippet, r.Snippet)
			}
		}
		countAvail := func(id uuid.UUID) (avail, gone int) {
			vs, err := sourceauth.OfAttempt(ctx, e.db.Client, id)
			require.NoError(t, err)
			for _, v := range vs {
				if v.Available {
					avail++
				} else {
					gone++
				}
			}
			return avail, gone
		}
		avail, gone := countAvail(forkAtt)
		assert.Equal(t, others, avail)
		assert.Equal(t, ops, gone)

		_, err = e.svc.SetACL(as(admin), opsDoc.ID, knowledge.ACL{Visibility: "RESTRICTED", Groups: []string{"sre", demo.OpsGroup}})
		require.NoError(t, err)
		avail, _ = countAvail(orig)
		assert.Equal(t, ops+others, avail, "the original's snapshot shows again")
		avail, gone = countAvail(forkAtt)
		assert.Equal(t, ops, gone, "the fork's snapshot was taken when the runbook was unreadable")
	})
}

// TestForkIdempotency: a replayed clientRequestId returns the same fork
// without writing; the same key for another message is
// IDEMPOTENCY_MISMATCH; keys are per user (bob's "k" is his own).
func TestForkIdempotency(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := as(alice)
		_, path := treeConversation(t, e, alice, forkRounds[:2]...)
		first, err := e.forks.Fork(ctx, path[3].ID, "fork-1")
		require.NoError(t, err)
		again, err := e.forks.Fork(ctx, path[3].ID, "fork-1")
		require.NoError(t, err)
		assert.Equal(t, first.ID, again.ID, "a replay returns the same fork")
		forks, err := e.db.Client.Conversation.Query().
			Where(conversation.UserID(alice.UserID), conversation.ForkedFromMessageIDNotNil()).Count(ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, forks, "the replay wrote nothing")

		_, err = e.forks.Fork(ctx, path[1].ID, "fork-1")
		assert.Equal(t, domain.CodeIdempotencyMismatch, code(err))

		_, bobPath := treeConversation(t, e, bob, forkRounds[0])
		bobFork, err := e.forks.Fork(as(bob), bobPath[1].ID, "fork-1")
		require.NoError(t, err, "keys are per user")
		assert.NotEqual(t, first.ID, bobFork.ID)
		checkForkOf(t, e, bob, bobFork, bobPath)

		// Concurrent forks with one key make one fork.
		var wg sync.WaitGroup
		got := make([]uuid.UUID, 4)
		for i := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f, err := e.forks.Fork(ctx, path[1].ID, "fork-race")
				if assert.NoError(t, err) {
					got[i] = f.ID
				}
			}()
		}
		wg.Wait()
		for _, id := range got {
			assert.Equal(t, got[0], id, "one fork per key")
		}

		// A key whose fork was deleted forks nothing more.
		_, err = e.eng.DeleteConversation(ctx, got[0], "")
		require.NoError(t, err)
		_, err = e.forks.Fork(ctx, path[1].ID, "fork-race")
		assert.Equal(t, domain.CodeNotFound, code(err))

		// Without a key every call forks anew; a bad key is refused.
		other, err := e.forks.Fork(ctx, path[3].ID, "")
		require.NoError(t, err)
		assert.NotEqual(t, first.ID, other.ID)
		_, err = e.forks.Fork(ctx, path[3].ID, string(make([]byte, domain.MaxClientIDBytes+1)))
		assert.Equal(t, domain.CodeBadUserInput, code(err))
	})
}

// TestForkProbes: forking a message of someone else's conversation (as
// another member, a tenant admin, or a support agent with an approved
// grant), of a DELETED conversation, or an unknown id, fails with the same
// NOT_FOUND, byte for byte, and writes nothing.
func TestForkProbes(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv, path := treeConversation(t, e, alice, forkRounds[0])
		g, err := e.support.Request(as(sam), support.RequestInput{ConversationID: conv.ID, Reason: "ticket 18"})
		require.NoError(t, err)
		_, err = e.support.Approve(as(alice), g.ID)
		require.NoError(t, err)
		_, err = e.db.Client.Message.Get(as(sam), path[1].ID)
		require.NoError(t, err, "the agent reads the message")

		doomed, doomedPath := treeConversation(t, e, alice, forkRounds[1])
		_, err = e.eng.DeleteConversation(as(alice), doomed.ID, "")
		require.NoError(t, err)

		_, want := e.forks.Fork(as(alice), uuid.New(), "")
		require.Error(t, want)
		require.Equal(t, domain.CodeNotFound, code(want))
		for _, tc := range []struct {
			name string
			v    *viewer.Viewer
			id   uuid.UUID
		}{
			{"another member", bob, path[1].ID},
			{"an admin", admin, path[1].ID},
			{"a support agent with a grant", sam, path[1].ID},
			{"a deleted conversation", alice, doomedPath[1].ID},
			{"a deleted conversation's question", alice, doomedPath[0].ID},
			{"a random id", bob, uuid.New()},
		} {
			_, err := e.forks.Fork(as(tc.v), tc.id, "probe-"+tc.name)
			require.Error(t, err, tc.name)
			assert.Equal(t, want.Error(), err.Error(), tc.name)
			assert.Equal(t, code(want), code(err), tc.name)
		}
		sys := viewer.SystemJobContext(t.Context(), viewer.JobPurge)
		n, err := e.db.Client.Conversation.Query().Where(conversation.ForkedFromMessageIDNotNil()).Count(sys)
		require.NoError(t, err)
		assert.Zero(t, n, "no probe wrote a fork")
	})
}

// TestForkIsAskable: the fork of the edited branch answers a new question
// with the copied path as its history (the edit's question is in the
// prompt, the old branch's later rounds are not), and the new question
// follows the fork's leaf.
func TestForkIsAskable(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := as(alice)
		_, main := treeConversation(t, e, alice, forkRounds...)
		editQ, editA := addEdit(t, e, main[2], "编辑后的第二个问题：能上传压缩包吗？", "编辑分支的独特回答 XYZZY")
		fork, err := e.forks.Fork(ctx, editA.ID, "")
		require.NoError(t, err)
		res, err := e.eng.Ask(ctx, chat.AskInput{ConversationID: fork.ID, ClientMessageID: uuid.NewString(), Question: "那它的大小限制呢？"})
		require.NoError(t, err)
		o := e.wait(t, alice, res.Attempt.ID, 0)
		require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
		assert.Equal(t, int64(len(main[:2])+2+1), res.UserMessage.SequenceNo, "sequence numbers continue after the copies")
		p := e.model.lastPromptOrEmpty()
		assert.Contains(t, p, editQ.Content, "the copied path is the history")
		for _, m := range main[2:] {
			if m.Role == message.RoleUSER {
				assert.NotContains(t, p, m.Content, "nothing of the other branch")
			}
		}
		after, err := e.eng.Conversation(ctx, fork.ID)
		require.NoError(t, err)
		require.NotNil(t, res.UserMessage.ParentID, "the question follows the fork's leaf")
		assert.Equal(t, *fork.CurrentLeafID, *res.UserMessage.ParentID)
		assert.Equal(t, 4, res.UserMessage.Depth)
		require.NotNil(t, after.CurrentLeafID)
		leaf, err := e.db.Client.Message.Get(ctx, *after.CurrentLeafID)
		require.NoError(t, err)
		assert.Equal(t, message.RoleASSISTANT, leaf.Role, "the answer is the fork's new leaf")
		assert.Equal(t, res.UserMessage.ID, *leaf.ParentID)
	})
}
