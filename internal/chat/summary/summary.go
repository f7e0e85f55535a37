// Package summary writes a conversation's rolling summaries (docs/ENGINE.md
// D8 and "Summarisers"): it folds the rounds that fell out of the history
// window into the summary once enough have piled up.
//
//   - The fold (summary.go): when one is due (Due), what it covers, and its
//     compare-and-swap write, recomputed should it lose; on a message tree
//     (path.go) it folds the current path and stores the summary on the
//     message it covers up to (messages.path_summary), for every branch
//     through that message; a line written before trees folds into the
//     conversation's summary columns as before.
//   - The deterministic summariser (deterministic.go): one line per round,
//     the question and its outcome, never the answer text. The history
//     window (internal/chat/history) writes the same lines for the rounds
//     not folded yet.
//   - The LLM summariser (llm.go): the regeneration cap, chunked folding
//     with entity checks and retries, and the fallback to the
//     deterministic summary.
//   - The per-conversation lock (lock.go) that serialises summarisers, in
//     this process and, on PostgreSQL, across instances.
//
// Rows are read and written through Ent as the viewer in ctx. It knows
// nothing of the engine (internal/chat), which passes what it needs in a
// Summarizer, made once, and calls Fold after an answer.
package summary

import (
	"context"
	"log/slog"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/store"
)

// Summarizer folds conversations' rounds into their summaries. Its
// exported fields are what it needs of the engine; they are set once,
// where the engine is made, and not changed after. It is safe for
// concurrent use.
type Summarizer struct {
	// DB holds the conversations: its Ent client reads and writes them,
	// and on PostgreSQL its pool holds the lock transactions (lock.go).
	DB *store.DB
	// Model is asked for LLM summaries.
	Model llm.Model
	Log   *slog.Logger
	// Written, when not nil, is told of every summary a fold wrote, with
	// the conversation as the fold read it.
	Written func(ctx context.Context, conv *ent.Conversation)

	// serial serialises this summariser's folds (lock.go).
	serial serial
}

// foldTries bounds how often a fold is recomputed after losing the
// compare-and-swap (which the per-conversation lock makes exceptional).
const foldTries = 3

// turnRunes caps one user turn as the summariser sees it; the key
// entities of a cut turn are kept (llm.ClipKeepingEntities).
const turnRunes = 1000

// Fold folds the rounds that fell out of the window into the
// conversation summary once more than SummaryTriggerRounds of them have
// piled up (docs/ENGINE.md D8 and "Summarisers"), with the tenant's
// summariser (st) and, for the LLM one, the chat model model. Only the
// user's turns and their outcomes go in, never answer text, so a summary
// cannot carry a revoked document's content forward (D13) nor an old
// answer as a fact (D10).
//
// Compression is serialised per conversation (lock): a second summariser
// waits, then folds from the state the first one wrote, so no round is
// summarised twice and no summary version is lost. The write is still a
// compare-and-swap on summary_version; should it ever lose (a lock lost
// with its connection), the fold is recomputed from the new state. Asks
// never touch the summary, so they cannot invalidate it.
func (s *Summarizer) Fold(ctx context.Context, conversationID uuid.UUID, st domain.TenantSettings, model Model) error {
	release, err := s.lock(ctx, conversationID)
	if err != nil {
		return err
	}
	defer release()
	for range foldTries {
		done, err := s.foldOnce(ctx, conversationID, st, model)
		if err != nil || done {
			return err
		}
		s.Log.InfoContext(ctx, "summary changed meanwhile; folding again", "conversation", conversationID)
	}
	return domain.Errorf(domain.CodeConflict, "summary of conversation %s kept changing during %d folds", conversationID, foldTries)
}

// foldOnce folds what is due from the current state and writes it with a
// compare-and-swap. It reports done=false only when the swap lost.
func (s *Summarizer) foldOnce(ctx context.Context, conversationID uuid.UUID, st domain.TenantSettings, model Model) (bool, error) {
	client := s.DB.Client
	conv, err := client.Conversation.Get(ctx, conversationID)
	if err != nil {
		return false, err
	}
	if !st.StrategyFor(conv.HistoryStrategy).UsesSummary() {
		return true, nil // SLIDING_WINDOW carries no summary
	}
	if conv.CurrentLeafID != nil {
		return s.foldPath(ctx, conv, *conv.CurrentLeafID, st, model)
	}
	return s.foldLine(ctx, conv, st, model)
}

// foldLine folds a line written before messages had parents (a
// conversation without a current leaf), by sequence numbers, into the
// conversation's summary columns, as folds did then.
func (s *Summarizer) foldLine(ctx context.Context, conv *ent.Conversation, st domain.TenantSettings, model Model) (bool, error) {
	client := s.DB.Client
	pending, err := client.Message.Query().
		Where(message.ConversationID(conv.ID), message.RoleEQ(message.RoleUSER),
			message.SequenceNoGT(conv.SummaryMessageSequence)).
		Count(ctx)
	if err != nil {
		return false, err
	}
	if !Due(pending, st) {
		return true, nil
	}
	fold := pending - st.HistoryRounds
	// The oldest fold questions, plus the next one, whose sequence number
	// bounds the new coverage.
	users, err := client.Message.Query().
		Where(message.ConversationID(conv.ID), message.RoleEQ(message.RoleUSER),
			message.SequenceNoGT(conv.SummaryMessageSequence)).
		Order(ent.Asc(message.FieldSequenceNo)).
		Limit(fold + 1).
		WithAttempts(func(q *ent.AttemptQuery) {
			q.Select(attempt.FieldUserMessageID, attempt.FieldStatus, attempt.FieldRefused)
		}).
		All(ctx)
	if err != nil {
		return false, err
	}
	if len(users) <= fold {
		return true, nil
	}
	covered := users[fold].SequenceNo - 1
	items := make([]llm.SummaryItem, fold)
	for i, u := range users[:fold] {
		items[i] = llm.SummaryItem{Question: llm.ClipKeepingEntities(u.Content, turnRunes), Outcome: Outcome(u.Edges.Attempts)}
	}
	summary := s.summarize(ctx, conv.Summary, conv.SummaryVersion, items, st, model)
	n, err := client.Conversation.Update().
		Where(conversation.ID(conv.ID), conversation.SummaryVersion(conv.SummaryVersion)).
		SetSummary(summary).SetSummaryMessageSequence(covered).
		AddSummaryVersion(1).AddVersion(1).
		Save(ctx)
	if err != nil || n == 0 {
		return false, err
	}
	if s.Written != nil {
		s.Written(ctx, conv)
	}
	return true, nil
}

// Due reports whether a conversation with pending USER messages after its
// summary's coverage has more than SummaryTriggerRounds rounds beyond the
// HistoryRounds kept verbatim, i.e. whether Fold would fold.
func Due(pending int, st domain.TenantSettings) bool {
	return pending-st.HistoryRounds > st.SummaryTriggerRounds
}

// summarize applies the tenant's summariser to base, the previous summary,
// at position version of its lineage. The deterministic one copies
// the previous lines and appends one line per round. The LLM one first
// decides whether the previous summary is carried at all (the
// regeneration cap, carriesPrevious), then folds in chunks with entity
// checks and retries (llmSummary); if that fails it falls back to the
// deterministic summary of the same material.
func (s *Summarizer) summarize(ctx context.Context, base string, version int, items []llm.SummaryItem, st domain.TenantSettings, model Model) string {
	if st.Summarizer == domain.SummarizerLLM {
		if !carriesPrevious(version, st.SummaryMaxRegenerations) {
			base = ""
		}
		if out, ok := s.llmSummary(ctx, base, items, st, model); ok {
			return out
		}
	}
	return Deterministic(base, items, st.SummaryMaxChars)
}

// carriesPrevious reports whether the next LLM fold re-summarises the
// current summary (version v). A summary lineage is at most maxRegen+1
// writes: the first summarises fresh rounds, each of the next maxRegen
// re-summarises its predecessor with the new rounds, and the one after
// that drops the previous summary — its older material is not summarised
// again (the "telephone game", docs/ENGINE.md D8) — and starts a new
// lineage from the newly folded rounds. No material is re-summarised more
// than maxRegen times.
func carriesPrevious(v, maxRegen int) bool {
	if maxRegen <= 0 {
		return false
	}
	return v%(maxRegen+1) != 0
}
