package chat

import (
	"context"
	"strings"
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/chat/summary"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/llm"
)

// newSummarizer returns the engine's summariser (internal/chat/summary),
// writing through the engine's database with its model and logger, and
// publishing each summary it writes as a change of the conversation.
func (e *Engine) newSummarizer() *summary.Summarizer {
	return &summary.Summarizer{
		DB: e.db, Model: e.model, Log: e.log,
		Written: func(ctx context.Context, conv *ent.Conversation) {
			e.feed.ConversationChanged(ctx, conv, feed.ConversationUpdated, feed.ViewerConversationUpdated)
		},
	}
}

// afterCompletion runs the work that must not delay an answer: folding old
// rounds into the summary and, after the first answer, a better title;
// neither for a temporary chat.
// pending is the conversation's USER messages after the summary's
// coverage, counted by the completion transaction: when no fold is due
// (summary.Due), the summariser is not started at all, which spares its
// lock and its reads (docs/ENGINE.md, "Statements per ask"). A fold that
// is due is still decided again on the fresh row, under the lock.
func (e *Engine) afterCompletion(ctx context.Context, j job, pending int) {
	// A temporary chat gets neither (temporary.go): no stored summary, no
	// model-made title; its prompt history is built as usual.
	temporary := authz.IsTemporary(j.conv)
	summarize := !temporary && j.settings.StrategyFor(j.conv.HistoryStrategy).UsesSummary() && summary.Due(pending, j.settings)
	title := !temporary && j.first && e.cfg.GenerateTitles
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
		// A SLIDING_WINDOW conversation takes no summary lock; the fold
		// checks again on the fresh row.
		if summarize {
			// Asked of the attempt's model and metered (sideModel).
			m := summary.Model{Name: j.model.charge.Model, LLM: e.sideModel(j)}
			if err := e.summarizer.Fold(ctx, j.conv.ID, j.settings, m); err != nil {
				e.log.WarnContext(ctx, "summary not updated", "conversation", j.conv.ID, "err", err)
			}
		}
		if title {
			e.generateTitle(ctx, e.sideModel(j), j.conv, j.msg.Content)
		}
	}()
}

// generateTitle replaces a question-derived title with a short generated
// one by titler (the attempt's metered model, sideModel), unless the
// user has renamed the conversation meanwhile.
func (e *Engine) generateTitle(ctx context.Context, titler llm.Titler, conv *ent.Conversation, question string) {
	title, err := titler.Title(ctx, question)
	if err != nil || strings.TrimSpace(title) == "" {
		return
	}
	title = capBytes(strings.TrimSpace(title), MaxTitleBytes)
	// One row by id (not a bulk update): the search index hook keeps
	// the title's tokens (internal/convsearch).
	_, err = e.client.Conversation.UpdateOneID(conv.ID).
		Where(conversation.TitleSourceEQ(conversation.TitleSourceQUESTION)).
		SetTitle(title).SetTitleSource(conversation.TitleSourceGENERATED).AddVersion(1).
		Save(ctx)
	if err == nil {
		e.feed.ConversationChanged(ctx, conv, feed.ConversationUpdated, feed.ViewerConversationUpdated)
	}
}
