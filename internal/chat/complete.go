package chat

import (
	"context"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/prompt"
	"github.com/ragchat/ragchat/internal/promptfmt"
)

// completion is everything a finished answer is saved with.
type completion struct {
	standalone string
	requires   bool
	assembled  prompt.Result
	sources    []sourcePacket
	usage      llm.Usage
	model      string
	window     window
	refused    bool
	refusal    string
	answer     string
}

// complete validates the answer's citations and saves, in one transaction,
// the ASSISTANT message, the source snapshots (marking the cited ones) and
// the COMPLETED attempt with its model, usage, manifest and timings. If the
// attempt is no longer this instance's PENDING attempt, nothing is saved.
func (e *Engine) complete(ctx context.Context, j job, p *progress, c completion) {
	text, _, first := p.snapshot()
	if !c.refused {
		known := make(map[string]bool, len(c.sources))
		for _, s := range c.sources {
			known[s.Label] = true
		}
		c.answer, _ = promptfmt.StripUnknownCitations(text, known)
	}
	fctx, cancel := finalContext(ctx)
	defer cancel()
	att, err := e.saveCompletion(fctx, j, c, first)
	if err != nil {
		// The database is failing: leave the attempt PENDING; the reaper
		// fails it once its lease expires and the database is back.
		e.log.ErrorContext(ctx, "attempt completion not saved", "attempt", j.att.ID, "err", err)
		return
	}
	if att == nil {
		return // cancelled or reaped meanwhile; that path published FAILED
	}
	e.publishAttempt(fctx, att.ID, EventCompleted, utf8.RuneCountInString(att.Answer), attemptPayload{})
	e.broker.Retire(attemptTopic(att.ID))
	e.attemptChanged(fctx, att)
	outcome := "completed"
	if c.refused {
		outcome = "refused"
	}
	e.obs.AttemptFinished(outcome, "", c.model, ttft(j.att.StartedAt, first), c.usage.PromptTokens, c.usage.CompletionTokens)
	e.afterCompletion(context.WithoutCancel(ctx), j)
}

// saveCompletion is the completion transaction. It locks the conversation
// first (the order Ask uses, so the two never deadlock), claims the attempt
// with a conditional update, then writes the message and sources.
func (e *Engine) saveCompletion(ctx context.Context, j job, c completion, first time.Time) (*ent.Attempt, error) {
	tx, err := e.client.Tx(ctx)
	if err != nil {
		return nil, err
	}
	conv, err := tx.Conversation.UpdateOneID(j.conv.ID).AddLastSequenceNo(1).AddVersion(1).Save(ctx)
	if err != nil {
		return nil, rollback(tx, err)
	}
	now := e.now()
	manifest := c.assembled.Manifest
	upd := tx.Attempt.Update().
		Where(attempt.ID(j.att.ID), attempt.StatusEQ(attempt.StatusPENDING), attempt.LeaseOwner(e.cfg.InstanceID)).
		SetStatus(attempt.StatusCOMPLETED).
		SetStandaloneQuestion(c.standalone).SetRequiresHistory(c.requires).
		SetAnswer(c.answer).SetCheckpointSeq(utf8.RuneCountInString(c.answer)).
		SetRefused(c.refused).
		SetPromptTokens(c.usage.PromptTokens).SetCompletionTokens(c.usage.CompletionTokens).
		SetTotalTokens(c.usage.TotalTokens).
		SetContextManifest(&manifest).SetSummaryVersion(c.window.summaryVersion).
		SetCompletedAt(now).
		ClearLeaseOwner().ClearLeaseExpiresAt()
	if c.refused {
		upd.SetRefusalReason(c.refusal)
	} else {
		upd.SetModel(c.model)
	}
	if !first.IsZero() {
		upd.SetFirstTokenAt(first)
	}
	n, err := upd.Save(ctx)
	if err != nil {
		return nil, rollback(tx, err)
	}
	if n == 0 {
		return nil, rollback(tx, nil)
	}
	mc := tx.Message.Create().
		SetConversationID(j.conv.ID).SetOwnerID(j.conv.UserID).
		SetSequenceNo(conv.LastSequenceNo).SetRole(message.RoleASSISTANT).
		SetContent(c.answer).SetAttemptID(j.att.ID).SetTraceID(j.att.TraceID).
		SetStandaloneQuestion(c.standalone)
	if !c.refused {
		mc.SetModel(c.model).SetPromptTokens(c.usage.PromptTokens).SetCompletionTokens(c.usage.CompletionTokens)
	}
	msg, err := mc.Save(ctx)
	if err != nil {
		return nil, rollback(tx, err)
	}
	if len(c.sources) > 0 {
		cited := map[string]bool{}
		for _, l := range promptfmt.Citations(c.answer) {
			cited[l] = true
		}
		bulk := make([]*ent.SourceCreate, len(c.sources))
		for i, s := range c.sources {
			bulk[i] = tx.Source.Create().SetID(s.ID).
				SetAttemptID(j.att.ID).SetOwnerID(j.conv.UserID).
				SetChunkID(s.Chunk).SetDocumentID(s.Document).
				SetLabel(s.Label).SetRank(s.Rank).SetScore(s.Score).SetSnippet(s.Snippet).
				SetDocumentTitle(s.Title).SetDocumentVersion(s.Version).SetCited(cited[s.Label])
		}
		if err := tx.Source.CreateBulk(bulk...).Exec(ctx); err != nil {
			return nil, rollback(tx, err)
		}
	}
	att, err := tx.Attempt.Get(ctx, j.att.ID)
	if err != nil {
		return nil, rollback(tx, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	e.messageCreated(ctx, msg)
	return att.Unwrap(), nil
}

// refusalText is the answer when no authorised evidence passes the
// threshold. No model is called: the refusal is deterministic and cheap.
func refusalText(lang string) string {
	if lang == "en" {
		return "Sorry, I could not find anything in the knowledge base you have access to that answers this question."
	}
	return "抱歉，在你有权访问的知识库中没有找到可以回答这个问题的资料。"
}

// refuse completes the attempt as refused: no evidence, no model call. The
// refusal is streamed as one delta so clients render it like any answer.
func (e *Engine) refuse(ctx context.Context, j job, p *progress, standalone string, requires bool, assembled prompt.Result, win window) {
	text := refusalText(assembled.Language)
	seq := p.add(text, e.now())
	e.publishAttempt(ctx, j.att.ID, EventDelta, seq, attemptPayload{Text: text})
	e.complete(ctx, j, p, completion{
		standalone: standalone, requires: requires, assembled: assembled, window: win,
		refused: true, refusal: domain.RefusalNoEvidence, answer: text,
	})
}

// markFailed moves a PENDING attempt to FAILED with code and publishes it.
// When owned is true only this instance's lease qualifies (a run failing);
// otherwise any PENDING attempt does (cancel of a remote run, the reaper).
// It reports whether it changed the attempt.
func (e *Engine) markFailed(ctx context.Context, id uuid.UUID, code domain.FailureCode, msg, partial string, seq int, first time.Time, owned bool) bool {
	q := e.client.Attempt.Update().Where(attempt.ID(id), attempt.StatusEQ(attempt.StatusPENDING))
	if owned {
		q.Where(attempt.LeaseOwner(e.cfg.InstanceID))
	}
	q.SetStatus(attempt.StatusFAILED).SetFailureCode(string(code)).SetFailureMessage(msg).
		SetCompletedAt(e.now()).ClearLeaseOwner().ClearLeaseExpiresAt()
	if seq > 0 {
		q.SetAnswer(partial).SetCheckpointSeq(seq)
	}
	if !first.IsZero() {
		q.SetFirstTokenAt(first)
	}
	n, err := q.Save(ctx)
	if err != nil {
		e.log.ErrorContext(ctx, "attempt failure not saved; the reaper will retry", "attempt", id, "err", err)
		return false
	}
	if n == 0 {
		return false
	}
	e.publishAttempt(ctx, id, EventFailed, seq, attemptPayload{Code: string(code), Message: msg})
	e.broker.Retire(attemptTopic(id))
	if a, err := e.client.Attempt.Get(ctx, id); err == nil {
		e.attemptChanged(ctx, a)
	}
	return true
}

// ttft is the time from start to the first token (0 when none came).
func ttft(start, first time.Time) time.Duration {
	if first.IsZero() {
		return 0
	}
	return first.Sub(start)
}
