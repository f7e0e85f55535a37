package chat

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
)

// afterCompletion runs the work that must not delay an answer: folding old
// rounds into the summary and, after the first answer, a better title.
// pending is the conversation's USER messages after the summary's
// coverage, counted by the completion transaction: when no fold is due
// (foldDue), the summariser is not started at all, which spares its lock
// and its reads (docs/ENGINE.md, "Statements per ask"). A fold that is due
// is still decided again on the fresh row, under the lock.
func (e *Engine) afterCompletion(ctx context.Context, j job, pending int) {
	summarize := strategyFor(j.conv, j.settings).UsesSummary() && foldDue(pending, j.settings)
	title := j.first && e.cfg.GenerateTitles
	if !summarize && !title {
		return
	}
	e.mu.Lock()
	if e.closing {
		e.mu.Unlock()
		return
	}
	e.wg.Add(1)
	e.mu.Unlock()
	go func() {
		defer e.wg.Done()
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		// A SLIDING_WINDOW conversation takes no summary lock; foldOnce
		// checks again on the fresh row.
		if summarize {
			if err := e.maybeSummarize(ctx, j.conv.ID, j.settings); err != nil {
				e.log.WarnContext(ctx, "summary not updated", "conversation", j.conv.ID, "err", err)
			}
		}
		if title {
			e.generateTitle(ctx, j.conv, j.msg.Content)
		}
	}()
}

// summaryFoldTries bounds how often a fold is recomputed after losing the
// compare-and-swap (which the per-conversation lock makes exceptional).
const summaryFoldTries = 3

// summaryTurnRunes caps one user turn as the summariser sees it; the key
// entities of a cut turn are kept (llm.ClipKeepingEntities).
const summaryTurnRunes = 1000

// maybeSummarize folds the rounds that fell out of the window into the
// conversation summary once more than SummaryTriggerRounds of them have
// piled up (docs/ENGINE.md D8 and "Summarisers"). Only the user's turns and
// their outcomes go in, never answer text, so a summary cannot carry a
// revoked document's content forward (D13) nor an old answer as a fact
// (D10).
//
// Compression is serialised per conversation (lockSummary): a second
// summariser waits, then folds from the state the first one wrote, so no
// round is summarised twice and no summary version is lost. The write is
// still a compare-and-swap on summary_version; should it ever lose (a lock
// lost with its connection), the fold is recomputed from the new state.
// Asks never touch the summary, so they cannot invalidate it.
func (e *Engine) maybeSummarize(ctx context.Context, conversationID uuid.UUID, st domain.TenantSettings) error {
	release, err := e.lockSummary(ctx, conversationID)
	if err != nil {
		return err
	}
	defer release()
	for range summaryFoldTries {
		done, err := e.foldOnce(ctx, conversationID, st)
		if err != nil || done {
			return err
		}
		e.log.InfoContext(ctx, "summary changed meanwhile; folding again", "conversation", conversationID)
	}
	return domain.Errorf(domain.CodeConflict, "summary of conversation %s kept changing during %d folds", conversationID, summaryFoldTries)
}

// foldOnce folds what is due from the current state and writes it with a
// compare-and-swap. It reports done=false only when the swap lost.
func (e *Engine) foldOnce(ctx context.Context, conversationID uuid.UUID, st domain.TenantSettings) (bool, error) {
	conv, err := e.client.Conversation.Get(ctx, conversationID)
	if err != nil {
		return false, err
	}
	if !strategyFor(conv, st).UsesSummary() {
		return true, nil // SLIDING_WINDOW carries no summary
	}
	pending, err := e.client.Message.Query().
		Where(message.ConversationID(conv.ID), message.RoleEQ(message.RoleUSER),
			message.SequenceNoGT(conv.SummaryMessageSequence)).
		Count(ctx)
	if err != nil {
		return false, err
	}
	if !foldDue(pending, st) {
		return true, nil
	}
	fold := pending - st.HistoryRounds
	// The oldest fold questions, plus the next one, whose sequence number
	// bounds the new coverage.
	users, err := e.client.Message.Query().
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
		items[i] = llm.SummaryItem{Question: llm.ClipKeepingEntities(u.Content, summaryTurnRunes), Outcome: outcomeOf(u.Edges.Attempts)}
	}
	summary := e.summarize(ctx, conv, items, st)
	n, err := e.client.Conversation.Update().
		Where(conversation.ID(conv.ID), conversation.SummaryVersion(conv.SummaryVersion)).
		SetSummary(summary).SetSummaryMessageSequence(covered).
		AddSummaryVersion(1).AddVersion(1).
		Save(ctx)
	if err != nil || n == 0 {
		return false, err
	}
	e.conversationChanged(ctx, conv, ConversationUpdated, ViewerConversationUpdated)
	return true, nil
}

// foldDue reports whether a conversation with pending USER messages after
// its summary's coverage has more than SummaryTriggerRounds rounds beyond
// the HistoryRounds kept verbatim, i.e. whether maybeSummarize would fold.
func foldDue(pending int, st domain.TenantSettings) bool {
	return pending-st.HistoryRounds > st.SummaryTriggerRounds
}

// summarize applies the tenant's summariser. The deterministic one copies
// the previous lines and appends one line per round. The LLM one first
// decides whether the previous summary is carried at all (the
// regeneration cap, carriesPrevious), then folds in chunks with entity
// checks and retries (llmSummary); if that fails it falls back to the
// deterministic summary of the same material.
func (e *Engine) summarize(ctx context.Context, conv *ent.Conversation, items []llm.SummaryItem, st domain.TenantSettings) string {
	base := conv.Summary
	if st.Summarizer == domain.SummarizerLLM {
		if !carriesPrevious(conv.SummaryVersion, st.SummaryMaxRegenerations) {
			base = ""
		}
		if out, ok := e.llmSummary(ctx, base, items, st); ok {
			return out
		}
	}
	return deterministicSummary(base, items, st.SummaryMaxChars)
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

// deterministicSummary appends one line per item (llm.SummaryLine:
// "用户陈述：…；用户问：…；助手回答结果：…") to previous and keeps the newest
// lines within maxChars.
func deterministicSummary(previous string, items []llm.SummaryItem, maxChars int) string {
	var lines []string
	for _, l := range strings.Split(previous, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	for _, it := range items {
		if l := llm.SummaryLine(it); l != "" {
			lines = append(lines, l)
		}
	}
	total := 0
	start := len(lines)
	for start > 0 {
		n := len([]rune(lines[start-1])) + 1
		if total+n > maxChars {
			break
		}
		total += n
		start--
	}
	if start == len(lines) && len(lines) > 0 {
		return capRunes(lines[len(lines)-1], maxChars)
	}
	return strings.Join(lines[start:], "\n")
}

// outcomeOf describes what became of a question from its attempts, in the
// engine's words ("answered", "refused: no authorised evidence", "failed"),
// which llm.SummaryLine renders in the turn's language.
func outcomeOf(attempts []*ent.Attempt) string {
	answered, refused := false, false
	for _, a := range attempts {
		if a.Status == attempt.StatusCOMPLETED {
			if a.Refused {
				refused = true
			} else {
				answered = true
			}
		}
	}
	switch {
	case answered:
		return "answered"
	case refused:
		return "refused: no authorised evidence"
	default:
		return "failed"
	}
}

func capRunes(s string, n int) string {
	if n <= 0 || len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// generateTitle replaces a question-derived title with a short generated
// one, unless the user has renamed the conversation meanwhile.
func (e *Engine) generateTitle(ctx context.Context, conv *ent.Conversation, question string) {
	title, err := e.model.Title(ctx, question)
	if err != nil || strings.TrimSpace(title) == "" {
		return
	}
	title = capBytes(strings.TrimSpace(title), MaxTitleBytes)
	n, err := e.client.Conversation.Update().
		Where(conversation.ID(conv.ID), conversation.TitleSourceEQ(conversation.TitleSourceQUESTION)).
		SetTitle(title).SetTitleSource(conversation.TitleSourceGENERATED).AddVersion(1).
		Save(ctx)
	if err == nil && n == 1 {
		e.conversationChanged(ctx, conv, ConversationUpdated, ViewerConversationUpdated)
	}
}
