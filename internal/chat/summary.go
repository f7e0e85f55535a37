package chat

import (
	"context"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

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
func (e *Engine) afterCompletion(ctx context.Context, j job) {
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
		if err := e.maybeSummarize(ctx, j.conv.ID, j.settings); err != nil {
			e.log.WarnContext(ctx, "summary not updated", "conversation", j.conv.ID, "err", err)
		}
		if j.first && e.cfg.GenerateTitles {
			e.generateTitle(ctx, j.conv, j.msg.Content)
		}
	}()
}

// summaryChunkItems bounds one LLM summarisation call; larger inputs are
// folded chunk by chunk.
const summaryChunkItems = 20

// maybeSummarize folds the rounds that fell out of the window into the
// conversation summary once more than SummaryTriggerRounds of them have
// piled up (docs/ENGINE.md D8). Only the user's questions and their outcomes go
// in, never answer text, so a summary cannot carry a revoked document's
// content forward (D13). The write is a compare-and-swap on the summary's
// version, so two summarisers (two instances) never overwrite each other,
// while asks, which never touch the summary, cannot invalidate it.
func (e *Engine) maybeSummarize(ctx context.Context, conversationID uuid.UUID, st domain.TenantSettings) error {
	if !st.HistoryStrategy.UsesSummary() {
		return nil
	}
	conv, err := e.client.Conversation.Get(ctx, conversationID)
	if err != nil {
		return err
	}
	pending, err := e.client.Message.Query().
		Where(message.ConversationID(conv.ID), message.RoleEQ(message.RoleUSER),
			message.SequenceNoGT(conv.SummaryMessageSequence)).
		Count(ctx)
	if err != nil {
		return err
	}
	fold := pending - st.HistoryRounds
	if fold <= st.SummaryTriggerRounds {
		return nil
	}
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
		return err
	}
	if len(users) <= fold {
		return nil
	}
	covered := users[fold].SequenceNo - 1
	items := make([]llm.SummaryItem, fold)
	for i, u := range users[:fold] {
		items[i] = llm.SummaryItem{Question: u.Content, Outcome: outcomeOf(u.Edges.Attempts, isChinese(u.Content))}
	}
	summary := e.summarize(ctx, conv, items, st)
	n, err := e.client.Conversation.Update().
		Where(conversation.ID(conv.ID), conversation.SummaryVersion(conv.SummaryVersion)).
		SetSummary(summary).SetSummaryMessageSequence(covered).
		AddSummaryVersion(1).AddVersion(1).
		Save(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		e.log.InfoContext(ctx, "another summariser won; nothing to do", "conversation", conv.ID)
		return nil
	}
	e.conversationChanged(ctx, conv, ConversationUpdated, ViewerConversationUpdated)
	return nil
}

// summarize applies the tenant's strategy. The LLM strategy retries, folds
// large inputs chunk by chunk, stops re-summarising past the cap (each
// re-summary can drift, docs/ENGINE.md D8), and falls back to the deterministic
// summary on failure.
func (e *Engine) summarize(ctx context.Context, conv *ent.Conversation, items []llm.SummaryItem, st domain.TenantSettings) string {
	if st.Summarizer == domain.SummarizerLLM && conv.SummaryVersion < st.SummaryMaxRegenerations {
		prev := conv.Summary
		ok := true
		for start := 0; start < len(items) && ok; start += summaryChunkItems {
			end := min(start+summaryChunkItems, len(items))
			var out string
			out, ok = e.summarizeWithRetry(ctx, llm.SummarizeRequest{
				Previous: prev, Items: items[start:end], MaxChars: st.SummaryMaxChars, Model: e.chatModel(st),
			})
			if ok {
				prev = out
			}
		}
		if ok {
			return capRunes(prev, st.SummaryMaxChars)
		}
	}
	return deterministicSummary(conv.Summary, items, st.SummaryMaxChars)
}

// summarizeWithRetry calls the model up to three times with backoff.
func (e *Engine) summarizeWithRetry(ctx context.Context, req llm.SummarizeRequest) (string, bool) {
	delay := 200 * time.Millisecond
	for try := 0; try < 3; try++ {
		out, err := e.model.Summarize(ctx, req)
		if err == nil && strings.TrimSpace(out) != "" {
			return out, true
		}
		if ctx.Err() != nil {
			return "", false
		}
		e.log.WarnContext(ctx, "summary attempt failed", "try", try+1, "err", err)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", false
		case <-t.C:
		}
		delay *= 2
	}
	return "", false
}

// deterministicSummary appends one line per item ("用户问：…；结果：…") to
// previous and keeps the newest lines within maxChars.
func deterministicSummary(previous string, items []llm.SummaryItem, maxChars int) string {
	var lines []string
	for _, l := range strings.Split(previous, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	for _, it := range items {
		q := strings.Join(strings.Fields(it.Question), " ")
		if isChinese(it.Question) {
			lines = append(lines, "用户问："+truncateRunes(q, 120)+"；结果："+it.Outcome)
		} else {
			lines = append(lines, "User asked: "+truncateRunes(q, 120)+"; outcome: "+it.Outcome)
		}
	}
	total := 0
	start := len(lines)
	for start > 0 {
		n := utf8.RuneCountInString(lines[start-1]) + 1
		if total+n > maxChars {
			break
		}
		total += n
		start--
	}
	return strings.Join(lines[start:], "\n")
}

// outcomeOf describes what became of a question from its attempts.
func outcomeOf(attempts []*ent.Attempt, zh bool) string {
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
	case answered && zh:
		return "已回答"
	case answered:
		return "answered"
	case refused && zh:
		return "未找到授权资料"
	case refused:
		return "refused: no authorised evidence"
	case zh:
		return "未完成"
	default:
		return "failed"
	}
}

// isChinese reports whether s contains Han characters.
func isChinese(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

func capRunes(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
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
