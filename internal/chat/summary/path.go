package summary

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/chat/tree"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
)

// foldWalkMessages bounds the walk of one path fold: the messages from the
// leaf up to the nearest summarised ancestor. A path that has gone longer
// than that without a summary (its strategy carried none) is folded from
// the oldest of the rounds within reach, which is all any window would
// read of it anyway.
const foldWalkMessages = 1000

// foldPath folds the path that ends at leaf, the conversation's current
// leaf (docs/ENGINE.md, "Summaries on a tree"). It walks up from the leaf
// to the nearest ancestor that carries a path summary (or, for a
// conversation summarised before messages had parents, the message its
// summary covers up to); the USER questions below it are the path's
// pending rounds. When more than SummaryTriggerRounds beyond
// HistoryRounds are pending, the oldest are folded into that summary and
// the result is stored on the message the fold covers up to (the parent
// of the first question left unfolded), with path_summary_version one
// past the summary it continues: its position in the lineage, which the
// regeneration cap reads, and the optimistic lock of the write. Every
// path through that message, on any branch, continues from it; no other
// branch's summary is read or written. The conversation's summary columns
// are set to the same summary in the same transaction: they name the
// summary of the path that was current when it was written.
func (s *Summarizer) foldPath(ctx context.Context, conv *ent.Conversation, leaf uuid.UUID, st domain.TenantSettings, model Model) (bool, error) {
	client := s.DB.Client
	msgs, err := client.Message.Query().
		Where(tree.Up(tree.Walk{
			Start: leaf, Limit: foldWalkMessages, AtSummary: true, CoveredSeq: conv.SummaryMessageSequence,
			Conversation: conv.ID,
		})).
		Order(ent.Asc(message.FieldDepth)).
		WithAttempt(func(q *ent.AttemptQuery) {
			q.Select(attempt.FieldUserMessageID, attempt.FieldStatus, attempt.FieldRefused)
		}).
		All(ctx)
	if err != nil || len(msgs) == 0 {
		return true, err
	}
	base, version, below := "", 0, 0
	switch top := msgs[0]; {
	case top.PathSummary != nil:
		base, version, below = *top.PathSummary, top.PathSummaryVersion, 1
	case conv.SummaryMessageSequence > 0 && top.SequenceNo == conv.SummaryMessageSequence:
		base, version, below = conv.Summary, conv.SummaryVersion, 1
	}
	// The pending questions, oldest first, by their index in msgs (root
	// side first: msgs[i]'s parent is msgs[i-1]).
	var users []int
	for i := below; i < len(msgs); i++ {
		if msgs[i].Role == message.RoleUSER {
			users = append(users, i)
		}
	}
	if !Due(len(users), st) {
		return true, nil
	}
	fold := len(users) - st.HistoryRounds
	items := make([]llm.SummaryItem, fold)
	for k, i := range users[:fold] {
		items[k] = llm.SummaryItem{
			Question: llm.ClipKeepingEntities(msgs[i].Content, turnRunes),
			Outcome:  Outcome(pathAnswer(msgs, i)),
		}
	}
	covered := msgs[users[fold]-1] // the parent of the first question left unfolded
	summary := s.summarize(ctx, base, version, items, st, model)
	tx, err := client.Tx(ctx)
	if err != nil {
		return false, err
	}
	n, err := tx.Message.Update().
		Where(message.ID(covered.ID), message.PathSummaryIsNil(), message.PathSummaryVersion(covered.PathSummaryVersion)).
		SetPathSummary(summary).SetPathSummaryVersion(max(version, covered.PathSummaryVersion) + 1).
		Save(ctx)
	if err == nil && n == 1 {
		n, err = tx.Conversation.Update().
			Where(conversation.ID(conv.ID), conversation.SummaryVersion(conv.SummaryVersion)).
			SetSummary(summary).SetSummaryMessageSequence(covered.SequenceNo).
			AddSummaryVersion(1).AddVersion(1).
			Save(ctx)
	}
	if err != nil || n == 0 {
		_ = tx.Rollback()
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, err
	}
	if s.Written != nil {
		s.Written(ctx, conv)
	}
	return true, nil
}

// pathAnswer returns the attempt whose answer follows the question
// msgs[i] on its path (msgs root side first), or none when the next
// message on the path is not its answer (it failed, or was answered only
// on another branch): a question's outcome on a path is that path's.
func pathAnswer(msgs []*ent.Message, i int) []*ent.Attempt {
	if i+1 >= len(msgs) {
		return nil
	}
	a := msgs[i+1]
	if a.Role != message.RoleASSISTANT || a.Edges.Attempt == nil || a.Edges.Attempt.UserMessageID != msgs[i].ID {
		return nil
	}
	return []*ent.Attempt{a.Edges.Attempt}
}
