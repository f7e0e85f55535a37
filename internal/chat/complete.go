package chat

import (
	"context"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/prompt"
	"github.com/ragchat/ragchat/internal/promptfmt"
	"github.com/ragchat/ragchat/internal/viewer"
)

// completion is everything a finished answer is saved with.
type completion struct {
	standalone string
	requires   bool
	assembled  prompt.Result
	sources    []sourcePacket
	usage      llm.Usage
	model      string
	refused    bool
	refusal    string
	answer     string

	// summaryVersion is the version of the summary the context read.
	summaryVersion int
}

// complete saves the answer (saveDurably), whose citation labels the
// stream has already checked (citationFilter):
// in one transaction the ASSISTANT message, the source snapshots (marking
// the cited ones) and the COMPLETED attempt with its model, usage,
// manifest and timings. Only once that is durable do subscribers get
// COMPLETED. It returns errLeaseLost when the attempt is no longer this
// instance's PENDING attempt (ended elsewhere: fail publishes how), and
// errNotSaved when the database stayed unavailable for
// CompletionRetryTimeout.
func (e *Engine) complete(ctx context.Context, j job, p *progress, c completion) error {
	text, _, first := p.snapshot()
	if !c.refused {
		c.answer = text
	}
	att, pending, err := e.saveDurably(ctx, j, c, first)
	if err != nil {
		return err
	}
	fctx, cancel := finalContext(ctx)
	defer cancel()
	e.publishTerminal(fctx, att)
	if err := e.meter.SettleAnswer(fctx, j.model.charge, c.model, answerUsage(c), e.now()); err != nil {
		e.log.ErrorContext(ctx, "usage not settled; the reaper will", "attempt", j.att.ID, "err", err)
	}
	outcome := "completed"
	if c.refused {
		outcome = "refused"
	}
	e.obs.AttemptFinished(outcome, "", c.model, ttft(j.att.StartedAt, first), c.usage.PromptTokens, c.usage.CompletionTokens)
	e.afterCompletion(context.WithoutCancel(ctx), j, pending)
	return nil
}

// saveCompletion is the completion transaction. It locks the conversation
// first (the order Ask uses, so the two never deadlock), counting in the
// same statement the USER messages of the question's path that no summary
// covers yet (the returned pending, see summary.Due and pathPending) and moving the current leaf to the
// answer if it is still the answered question, claims the attempt with a conditional
// update that also stores the standalone question, stores that question on
// the user message the first time, then writes the answer's message and
// sources.
func (e *Engine) saveCompletion(ctx context.Context, j job, c completion, first time.Time) (*ent.Attempt, int, error) {
	tx, err := e.client.Tx(ctx)
	if err != nil {
		return nil, 0, err
	}
	now := e.now()
	// The answer follows its question in the tree, and becomes the
	// current leaf only if the question still is (the user may have
	// switched branch while it ran): a conditional part of the bump.
	answerID := uuid.Must(uuid.NewV7())
	question := j.msg.ID
	seq, pending, err := e.bumpCounting(ctx, tx, seqBump{id: j.conv.ID, tenantID: j.conv.TenantID, userID: j.conv.UserID, now: now,
		leaf: &answerID, leafFrom: &question}, j.msg, j.settings)
	if err != nil {
		return nil, 0, rollback(tx, err)
	}
	manifest := c.assembled.Manifest
	upd := tx.Attempt.Update().
		Where(attempt.ID(j.att.ID), attempt.StatusEQ(attempt.StatusPENDING), attempt.LeaseOwner(e.cfg.InstanceID)).
		SetStatus(attempt.StatusCOMPLETED).
		SetStandaloneQuestion(c.standalone).SetRequiresHistory(c.requires).
		SetAnswer(c.answer).SetCheckpointSeq(utf8.RuneCountInString(c.answer)).
		SetRefused(c.refused).
		SetPromptTokens(c.usage.PromptTokens).SetCompletionTokens(c.usage.CompletionTokens).
		SetTotalTokens(c.usage.TotalTokens).
		SetContextManifest(&manifest).SetSummaryVersion(c.summaryVersion).
		SetCompletedAt(now).SetCheckpointAt(now).SetUpdatedAt(now).
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
		return nil, 0, rollback(tx, err)
	}
	if n == 0 {
		return nil, 0, rollback(tx, errLeaseLost)
	}
	// The user message keeps the first rewrite of its question (a retry's
	// rewrite does not replace it).
	err = tx.Message.Update().
		Where(message.ID(j.msg.ID), message.StandaloneQuestionIsNil()).
		SetStandaloneQuestion(c.standalone).
		Exec(ctx)
	if err != nil {
		return nil, 0, rollback(tx, err)
	}
	mc := tx.Message.Create().SetID(answerID).
		SetConversationID(j.conv.ID).SetOwnerID(j.conv.UserID).
		SetParentID(question).SetDepth(j.msg.Depth + 1).
		SetSequenceNo(seq).SetRole(message.RoleASSISTANT).
		SetContent(c.answer).SetAttemptID(j.att.ID).SetTraceID(j.att.TraceID).
		SetStandaloneQuestion(c.standalone)
	if !c.refused {
		mc.SetModel(c.model).SetPromptTokens(c.usage.PromptTokens).SetCompletionTokens(c.usage.CompletionTokens)
	}
	msg, err := mc.Save(ctx)
	if err != nil {
		return nil, 0, rollback(tx, err)
	}
	if len(c.sources) > 0 {
		cited := map[string]bool{}
		for _, l := range promptfmt.Citations(c.answer) {
			cited[l] = true
		}
		bulk := make([]*ent.SourceCreate, len(c.sources))
		for i, s := range c.sources {
			bulk[i] = tx.Source.Create().SetID(s.ID).
				SetAttemptID(j.att.ID).SetOwnerID(j.conv.UserID)
			if s.Attachment != nil {
				bulk[i].SetKind(source.KindATTACHMENT).SetAttachmentID(*s.Attachment)
			} else {
				bulk[i].SetChunkID(s.Chunk).SetDocumentID(s.Document)
			}
			bulk[i].SetLabel(s.Label).SetRank(s.Rank).SetScore(s.Score).SetSnippet(s.Snippet).
				SetDocumentTitle(s.Title).SetDocumentVersion(s.Version).SetCited(cited[s.Label]).
				SetNillableChunkHash(nonEmpty(s.Hash))
		}
		if err := tx.Source.CreateBulk(bulk...).Exec(ctx); err != nil {
			return nil, 0, rollback(tx, err)
		}
	}
	// Without a quota the ledger gains the answer's usage and its side
	// calls' with the answer.
	if err := e.meter.RecordAnswerIn(ctx, tx.Client(), j.model.charge, c.model, answerUsage(c), j.side, now); err != nil {
		return nil, 0, rollback(tx, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, 0, err
	}
	j.side.Written()
	e.feed.MessageCreated(ctx, msg)
	return completedAttempt(j.att, c, manifest, now, first), pending, nil
}

// completedAttempt is the row saveCompletion wrote, built from the
// PENDING attempt and the values the conditional update set, instead of
// reading it back (docs/ENGINE.md, "Statements per ask"): while the
// attempt was PENDING and leased to this instance, nothing else changed
// the columns the update does not set.
func completedAttempt(pending *ent.Attempt, c completion, manifest domain.ContextManifest, now, first time.Time) *ent.Attempt {
	a := *pending
	a.Status = attempt.StatusCOMPLETED
	standalone := c.standalone
	a.StandaloneQuestion = &standalone
	a.RequiresHistory = c.requires
	a.Answer = c.answer
	a.CheckpointSeq = utf8.RuneCountInString(c.answer)
	a.Refused = c.refused
	a.PromptTokens, a.CompletionTokens, a.TotalTokens = c.usage.PromptTokens, c.usage.CompletionTokens, c.usage.TotalTokens
	a.ContextManifest = &manifest
	a.SummaryVersion = c.summaryVersion
	a.CompletedAt, a.CheckpointAt, a.UpdatedAt = &now, &now, now
	a.LeaseOwner, a.LeaseExpiresAt = nil, nil
	if c.refused {
		reason := c.refusal
		a.RefusalReason = &reason
	} else {
		model := c.model
		a.Model = &model
	}
	if !first.IsZero() {
		a.FirstTokenAt = &first
	}
	return &a
}

// refusalText is the answer when no authorised evidence passes the
// threshold. No model is called: the refusal is deterministic and cheap.
func refusalText(lang string) string {
	if lang == "en" {
		return "Sorry, I could not find anything in the knowledge base you have access to that answers this question."
	}
	return "抱歉，在你有权访问的知识库中没有找到可以回答这个问题的资料。"
}

// refusal turns c into a refused completion: no evidence, no model call.
// The refusal is streamed as one delta so clients render it like any
// answer.
func (e *Engine) refusal(ctx context.Context, j job, p *progress, c completion) completion {
	text := refusalText(c.assembled.Language)
	seq := p.add(text, e.now())
	e.publishAttempt(ctx, j.att.ID, EventDelta, seq, attemptPayload{Text: text})
	c.refused, c.refusal, c.answer = true, domain.RefusalNoEvidence, text
	return c
}

// markFailed moves a PENDING attempt to FAILED with code and publishes it.
// When owned is true only this instance's lease qualifies (a run failing);
// otherwise any PENDING attempt does (cancel of a remote run). It reports
// whether it changed the attempt.
//
// Whatever happens, this instance's subscribers get a terminal event
// (docs/ENGINE.md, "Failure and recovery"): when the update matches no row,
// the attempt was ended elsewhere and they get that outcome; when the
// write itself fails while a run of this instance ends, they get this
// FAILED at once and the reaper fixes the row once the database is back.
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
	switch {
	case err != nil:
		e.log.ErrorContext(ctx, "attempt failure not saved; the reaper will retry", "attempt", id, "err", err)
		if owned {
			e.publishAttempt(ctx, id, EventFailed, seq, attemptPayload{Code: string(code), Message: msg})
			e.broker.Retire(attemptTopic(id))
		}
		return false
	case n == 0:
		e.publishEnded(ctx, id)
		return false
	}
	if err := e.meter.Refund(ctx, id, e.now()); err != nil {
		e.log.ErrorContext(ctx, "reservation not refunded; the reaper will", "attempt", id, "err", err)
	}
	if a, err := e.client.Attempt.Get(ctx, id); err == nil {
		e.publishTerminal(ctx, a)
	} else {
		e.publishAttempt(ctx, id, EventFailed, seq, attemptPayload{Code: string(code), Message: msg})
		e.broker.Retire(attemptTopic(id))
	}
	return true
}

// publishEnded gives this instance's subscribers the outcome of an attempt
// that was ended elsewhere — cancelled or reaped by another instance, or
// completed by a commit whose acknowledgement was lost — by reading it.
// An attempt still PENDING (another instance holds it) publishes nothing.
func (e *Engine) publishEnded(ctx context.Context, id uuid.UUID) {
	a, err := e.client.Attempt.Get(viewer.SystemJobContext(ctx, viewer.JobReaper), id)
	if err != nil {
		e.log.WarnContext(ctx, "ended attempt not readable", "attempt", id, "err", err)
		return
	}
	if a.Status == attempt.StatusPENDING {
		return
	}
	e.publishTerminal(ctx, a)
}

// publishTerminal publishes a finished attempt's terminal event (COMPLETED,
// or FAILED with its code), retires its topic and notifies its
// conversation. A COMPLETED row is kept first for this instance's
// subscribers (recentOutcomes), who then need not read it again, with the
// run's evidence grant while the run, which calls this, still exists. A FAILED
// one is not: a run fails when its conversation is deleted, and then its
// subscribers must get the terminal event without the row, which nobody
// may read any more.
func (e *Engine) publishTerminal(ctx context.Context, a *ent.Attempt) {
	if a.Status == attempt.StatusCOMPLETED {
		var g *evidenceGrant
		if r, ok := e.running(a.ID); ok {
			g = r.evidence.Load()
		}
		e.outcomes.put(a, g, time.Now())
		e.publishAttempt(ctx, a.ID, EventCompleted, utf8.RuneCountInString(a.Answer), attemptPayload{})
	} else {
		var p attemptPayload
		if a.FailureCode != nil {
			p.Code = *a.FailureCode
		}
		if a.FailureMessage != nil {
			p.Message = *a.FailureMessage
		}
		e.publishAttempt(ctx, a.ID, EventFailed, a.CheckpointSeq, p)
	}
	e.broker.Retire(attemptTopic(a.ID))
	e.feed.AttemptChanged(ctx, a, e.temporaryAttempt(ctx, a))
}

// ttft is the time from start to the first token (0 when none came).
func ttft(start, first time.Time) time.Duration {
	if first.IsZero() {
		return 0
	}
	return first.Sub(start)
}
