package chat_test

import (
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
)

// TestSummaryDueCountsThePath: whether a fold is due after an answer is
// counted along the answered question's path, not by sequence numbers
// over the whole tree. With two history rounds and a trigger of one,
// four unsummarised questions on a path make a fold due.
//
// Branch B (round 2 edited) is made early; branch A then runs on to
// round 6 and is folded past B's messages. Back on B, two more rounds
// make B's path four unsummarised questions long: a fold lands on B's
// path (A's summaries are not B's ancestors), beside A's.
func TestSummaryDueCountsThePath(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		ask := func(q string) {
			e.ask(t, alice, conv.ID, q)
			chat.WaitIdle(e.eng)
		}
		summarised := func() []uuid.UUID {
			ids, err := e.db.Client.Message.Query().
				Where(message.ConversationID(conv.ID), message.PathSummaryNotNil()).IDs(sysCtx())
			require.NoError(t, err)
			return ids
		}
		qs, an := e.rounds(t, conv.ID, 2)
		chat.WaitIdle(e.eng)
		res, err := e.eng.Ask(as(alice), chat.AskInput{EditOf: ptrTo(qs[1]), ClientMessageID: uuid.NewString(), Question: "那超过以后会怎样？"})
		require.NoError(t, err)
		e.wait(t, alice, res.Attempt.ID, 0)
		chat.WaitIdle(e.eng)
		bLeaf := e.leafOf(t, conv.ID)

		_, err = e.eng.SelectBranch(as(alice), conv.ID, an[1])
		require.NoError(t, err)
		for _, q := range []string{"退款多久到账？", "那退款呢？", "怎么重置密码？", "那发票呢？"} {
			ask(q)
		}
		onA := summarised()
		require.NotEmpty(t, onA, "branch A is folded")

		_, err = e.eng.SelectBranch(as(alice), conv.ID, bLeaf)
		require.NoError(t, err)
		ask("支持哪些文件格式？")
		ask("可以批量上传吗？")

		ms := e.requireTree(t, conv.ID)
		bPath := pathTo(t, ms, e.leafOf(t, conv.ID))
		var onB []uuid.UUID
		for _, id := range summarised() {
			if slices.Contains(bPath, id) && !slices.Contains(onA, id) {
				onB = append(onB, id)
			}
		}
		assert.NotEmpty(t, onB, "four unsummarised questions on B's path: a fold on B's path")
	}, summaryEvery(domain.StrategyHybrid, domain.SummarizerDeterministic, 2))
}
