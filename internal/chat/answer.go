package chat

import (
	"cmp"
	"context"
	"errors"
	"io"
	"math"
	"slices"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/attachment"
	"github.com/ragchat/ragchat/internal/chat/history"
	"github.com/ragchat/ragchat/internal/contenthash"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/prompt"
	"github.com/ragchat/ragchat/internal/promptfmt"
	"github.com/ragchat/ragchat/internal/quota"
	"github.com/ragchat/ragchat/internal/tracing"
)

// generate runs one attempt to its end (docs/ENGINE.md D1, "Ask, step by
// step"): the context (buildContext), the streamed answer, and the final
// COMPLETED or FAILED write. It never returns an error: every outcome is
// recorded on the attempt, and every failure, wherever it happened, goes
// through fail once.
func (e *Engine) generate(ctx context.Context, j job) {
	ctx, span := e.startSpan(ctx, spanAnswer, jobAttributes(j)...)
	defer span.End()
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	p := &progress{}
	// The checkpointer renews the lease until the attempt's outcome is
	// written, also while a finished answer waits for the database; only
	// this function's return stops it, not the run's cancellation.
	cctx, cstop := context.WithCancel(context.WithoutCancel(ctx))
	checkpointed := make(chan struct{})
	go func() {
		defer close(checkpointed)
		e.keepCheckpointing(cctx, j.att.ID, p, stop)
	}()
	defer func() {
		cstop()
		<-checkpointed
	}()

	j.model = e.modelOf(ctx, j)
	j.side = &quota.Pending{}
	defer func() {
		// The side calls the answer's transaction did not write.
		fctx, cancel := finalContext(ctx)
		defer cancel()
		if err := e.meter.Flush(fctx, j.side, e.now()); err != nil {
			e.log.ErrorContext(ctx, "usage not recorded", "attempt", j.att.ID, "err", err)
		}
	}()
	c, err := e.answer(ctx, j, p)
	if err == nil {
		cctx, cspan := e.startSpan(ctx, spanComplete)
		err = e.complete(cctx, j, p, c)
		endSpan(cspan, err)
	}
	outcome := "completed"
	switch {
	case err != nil:
		outcome = "failed"
	case c.refused:
		outcome = "refused"
	}
	span.SetAttributes(tracing.Outcome.String(outcome))
	if err != nil {
		code, _ := failureCode(ctx, err)
		span.SetAttributes(tracing.FailureCode.String(string(code)))
		span.SetStatus(codes.Error, string(code))
		e.fail(ctx, j, p, err)
	}
}

// answer builds the context and produces the answer: a refusal when no
// authorised evidence passes the threshold, else the model's streamed
// text. The returned completion is ready to be saved.
func (e *Engine) answer(ctx context.Context, j job, p *progress) (completion, error) {
	// Read before the search: evidence found under this stamp is what the
	// asker may read as long as it holds (liveSources).
	stamp := e.access.ViewerStamp(ctx)
	bc, err := e.buildContext(ctx, j, func(standalone string, requires bool) error {
		// The questions are saved with the outcome (the completion
		// transaction, or fail), and by the first checkpoint of a long
		// answer, not by statements of their own (docs/ENGINE.md,
		// "Statements per ask").
		p.setRewrite(standalone, requires)
		e.publishAttempt(ctx, j.att.ID, EventStarted, 0, attemptPayload{Question: standalone, RequiresHistory: requires})
		return nil
	})
	if err != nil {
		return completion{}, err
	}
	c := completion{
		standalone: bc.Standalone, requires: bc.RequiresHistory, assembled: bc.Assembled,
		summaryVersion: bc.SummaryVersion, sources: packSources(bc.Assembled.Evidence),
	}
	e.noteEvidence(ctx, j.att.ID, stamp)
	e.publishAttempt(ctx, j.att.ID, EventSources, 0, attemptPayload{Sources: c.sources})
	if len(c.sources) == 0 {
		return e.refusal(ctx, j, p, c), nil
	}
	return e.stream(ctx, j, p, bc, c)
}

// stream calls the model and publishes its deltas until the answer ends.
// It returns the completion with the model's usage, or the error that
// stopped it (the model's, or the run's cancellation).
func (e *Engine) stream(ctx context.Context, j job, p *progress, bc history.BuiltContext, c completion) (completion, error) {
	calledAt := e.now()
	mctx, mspan := e.startSpan(ctx, spanModel, tracing.Model.String(bc.Model))
	// The model span lasts until the first text (or the stream's end); the
	// stream span from there to the last delta.
	var sspan trace.Span
	deltas := 0
	defer func() {
		if sspan == nil {
			mspan.End()
			return
		}
		sspan.SetAttributes(tracing.Deltas.Int(deltas))
		sspan.End()
	}()
	m := j.model
	if m.llm == nil {
		m.llm = e.model
	}
	maxTokens, err := answerTokens(j, bc)
	if err != nil {
		failSpan(mspan, err)
		return c, err
	}
	st, err := m.llm.ChatStream(mctx, m.chatRequest(llm.ChatRequest{
		Model: bc.Model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: bc.Assembled.System},
			{Role: llm.RoleUser, Content: bc.Assembled.User},
		},
		MaxTokens: maxTokens,
		// The assembler counted the prompt already, framing included: a
		// model without usage reports need not tokenise it again, and the
		// attempt's promptTokens is then the manifest's total.
		PromptTokens: bc.Assembled.Manifest.Tokens.Total,
	}))
	if err != nil {
		failSpan(mspan, err)
		return c, err
	}
	defer st.Close()
	// Labels naming no source are removed before the text is streamed,
	// so the streamed text is the saved answer (citationFilter).
	cite := citationFilter(c.sources)
	topic := attemptTopic(j.att.ID)
	for {
		delta, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			failSpan(streamOrModel(sspan, mspan), err)
			return c, err
		}
		if delta = cite.Push(delta); delta == "" {
			continue
		}
		if sspan == nil {
			mspan.SetAttributes(tracing.TimeToFirstToken.Int64(e.now().Sub(calledAt).Milliseconds()))
			mspan.AddEvent("first token")
			mspan.End()
			_, sspan = e.startSpan(ctx, spanStream)
		}
		deltas++
		seq := p.add(delta, e.now())
		e.publishDelta(ctx, topic, seq, delta)
	}
	if err := ctx.Err(); err != nil {
		failSpan(streamOrModel(sspan, mspan), err)
		return c, err
	}
	if rest := cite.Flush(); rest != "" {
		seq := p.add(rest, e.now())
		e.publishDelta(ctx, topic, seq, rest)
	}
	c.usage, c.model = st.Usage(), st.Model()
	if sspan != nil {
		sspan.SetAttributes(tracing.PromptTokens.Int(c.usage.PromptTokens), tracing.AnswerTokens.Int(c.usage.CompletionTokens))
	}
	return c, nil
}

// saveRewrite stores both questions: the attempt's standalone question and,
// the first time, the user message's. A failing run uses it (fail); an
// answer saves them in its completion transaction.
func (e *Engine) saveRewrite(ctx context.Context, j job, standalone string, requires bool) error {
	n, err := e.client.Attempt.Update().
		Where(attempt.ID(j.att.ID), attempt.StatusEQ(attempt.StatusPENDING), attempt.LeaseOwner(e.cfg.InstanceID)).
		SetStandaloneQuestion(standalone).SetRequiresHistory(requires).
		Save(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return errLeaseLost
	}
	return e.client.Message.Update().
		Where(message.ID(j.msg.ID), message.StandaloneQuestionIsNil()).
		SetStandaloneQuestion(standalone).
		Exec(ctx)
}

// retrieve embeds the standalone question and searches the conversation's
// knowledge base among the chunks the viewer may read now, keeping those
// above the evidence threshold.
func (e *Engine) retrieve(ctx context.Context, j job, question string) (_ []prompt.Evidence, err error) {
	if err := e.checkEmbeddingModel(ctx, j.conv.KnowledgeBaseID); err != nil {
		return nil, err
	}
	ctx, span := e.startSpan(ctx, spanRetrieve,
		tracing.KnowledgeBase.String(j.conv.KnowledgeBaseID.String()),
		tracing.Statement.String(e.retrieveStatement()), tracing.TopK.Int(j.settings.RetrievalTopK))
	var hits []Hit
	var out []prompt.Evidence
	defer func() {
		span.SetAttributes(tracing.Hits.Int(len(hits)), tracing.Chunks.Int(len(out)))
		endSpan(span, err)
	}()
	vecs, err := e.model.Embed(ctx, []string{question})
	if err != nil {
		return nil, err
	}
	if len(vecs) != 1 {
		return nil, llm.Errorf(llm.KindUpstream, "embedding returned %d vectors for 1 input", len(vecs))
	}
	hits, err = e.search.Search(ctx, j.conv.KnowledgeBaseID, vecs[0], j.settings.RetrievalTopK)
	if err != nil {
		return nil, err
	}
	threshold := j.settings.MinEvidenceScore
	if threshold <= 0 {
		threshold = e.cfg.MinEvidenceScore
	}
	out = make([]prompt.Evidence, 0, len(hits))
	for _, h := range hits {
		if h.Score < threshold || h.Chunk == nil || h.Document == nil {
			continue
		}
		out = append(out, prompt.Evidence{
			ChunkID: h.Chunk.ID, DocumentID: h.Document.ID, DocumentTitle: h.Document.Title,
			DocumentVersion: h.Document.Version, Content: h.Chunk.Content, Score: h.Score,
			ContentHash: chunkHash(h.Chunk),
		})
	}
	if pinned := j.msg.AttachmentIds; e.searchAttachments || len(pinned) > 0 {
		ahits, err := attachment.SearchPinned(ctx, e.client, j.conv.ID, vecs[0], j.settings.RetrievalTopK, pinned)
		if err != nil {
			return nil, err
		}
		out = mergeAttachmentEvidence(out, ahits, pinned, e.searchAttachments, threshold, j.settings.RetrievalTopK)
	}
	return out, nil
}

// mergeAttachmentEvidence merges the attachment hits into the knowledge
// base's evidence kb and keeps the k best, best first. The best chunk of
// each pinned attachment (one the question was asked with) is always kept,
// whatever its score, and whatever k; the other hits compete for the
// remaining places only with all (Deps.SearchAttachments) and at or above
// threshold.
func mergeAttachmentEvidence(kb []prompt.Evidence, hits []attachment.Hit, pinned []uuid.UUID, all bool, threshold float64, k int) []prompt.Evidence {
	var forced []prompt.Evidence
	rest := kb
	seen := map[uuid.UUID]bool{}
	for _, h := range hits {
		id := h.Attachment.ID
		switch {
		case slices.Contains(pinned, id) && !seen[id]:
			seen[id] = true
			forced = append(forced, attachmentEvidence([]attachment.Hit{h}, math.Inf(-1))...)
		case all:
			rest = append(rest, attachmentEvidence([]attachment.Hit{h}, threshold)...)
		}
	}
	byScore := func(a, b prompt.Evidence) int { return cmp.Compare(b.Score, a.Score) }
	slices.SortStableFunc(rest, byScore)
	out := append(forced, rest[:min(len(rest), max(k-len(forced), 0))]...)
	slices.SortStableFunc(out, byScore)
	return out
}

// attachmentEvidence is the evidence of the attachment hits at or above
// threshold: an attachment chunk, labelled with its file name.
func attachmentEvidence(hits []attachment.Hit, threshold float64) []prompt.Evidence {
	var out []prompt.Evidence
	for _, h := range hits {
		if h.Score < threshold {
			continue
		}
		out = append(out, prompt.Evidence{
			ChunkID: h.Chunk.ID, AttachmentID: h.Attachment.ID, DocumentTitle: h.Attachment.Name,
			Content: h.Chunk.Content, Score: h.Score, ContentHash: contenthash.Of(h.Chunk.Content),
		})
	}
	return out
}

// maxSnippetRunes bounds a citation snippet (and the SOURCES event).
const maxSnippetRunes = 300

// packSources snapshots the labelled evidence with fresh source ids, which
// the completion reuses so that live and saved sources agree.
func packSources(ev []prompt.Labeled) []sourcePacket {
	out := make([]sourcePacket, len(ev))
	for i, x := range ev {
		out[i] = sourcePacket{
			ID: uuid.Must(uuid.NewV7()), Chunk: x.ChunkID, Document: x.DocumentID, Label: x.Label,
			Rank: i + 1, Score: x.Score, Snippet: truncateRunes(x.Content, maxSnippetRunes),
			Title: x.DocumentTitle, Version: x.DocumentVersion, Hash: x.ContentHash,
		}
		if x.AttachmentID != uuid.Nil {
			a := x.AttachmentID
			out[i].Attachment = &a
		}
	}
	return out
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// fail records a FAILED attempt with a stable code (never a fake
// assistant message), keeping the user message and the partial answer.
// It is the one place a run's failure is handled.
func (e *Engine) fail(ctx context.Context, j job, p *progress, err error) {
	code, msg := failureCode(ctx, err)
	if code == domain.FailureInternal {
		e.log.ErrorContext(ctx, "attempt failed", "attempt", j.att.ID, "err", err)
	}
	fctx, cancel := finalContext(ctx)
	defer cancel()
	if standalone, requires, ok := p.rewrite(); ok {
		// Both questions are kept, as an answer keeps them; when the
		// attempt is no longer this instance's, markFailed publishes how
		// it ended.
		if err := e.saveRewrite(fctx, j, standalone, requires); err != nil && !errors.Is(err, errLeaseLost) {
			e.log.WarnContext(fctx, "questions of a failed attempt not saved", "attempt", j.att.ID, "err", err)
		}
	}
	text, seq, first := p.snapshot()
	e.markFailed(fctx, j.att.ID, code, msg, text, seq, first, true)
	e.obs.AttemptFinished("failed", code, e.chatModel(j.settings), ttft(j.att.StartedAt, first), 0, 0)
}

// failureCode is the failure code and message of a run that stopped with
// err, the first that applies: err says the answer could not be saved or
// the lease was lost (INTERRUPTED); the run's cancellation cause says the
// user cancelled or the conversation was deleted (CANCELLED), the server
// is shutting down or the lease was lost (INTERRUPTED), or the answer
// timed out (MODEL_TIMEOUT), whatever err the cancellation produced; err is
// the model's (its own code); anything else is INTERNAL.
func failureCode(ctx context.Context, err error) (domain.FailureCode, string) {
	switch {
	case errors.Is(err, errNotSaved):
		return domain.FailureInterrupted, errNotSaved.Error()
	case errors.Is(err, errLeaseLost):
		return domain.FailureInterrupted, errLeaseLost.Error()
	}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errCancelledByUser), errors.Is(cause, errDeleted):
		return domain.FailureCancelled, cause.Error()
	case errors.Is(cause, errShuttingDown), errors.Is(cause, errLeaseLost):
		return domain.FailureInterrupted, cause.Error()
	case errors.Is(cause, errAnswerTimeout):
		return domain.FailureModelTimeout, cause.Error()
	}
	if _, isModel := llm.AsError(err); isModel {
		return llm.FailureCode(err), err.Error()
	}
	return domain.FailureInternal, "internal error"
}

// citationFilter returns the filter an answer's stream passes the model's
// text through: it removes every citation label that names none of
// sources ("[C7]" when the prompt carried C1–C3), also when the model
// splits the label across deltas, before the text is streamed,
// checkpointed or saved. So the streamed text, the partial answer of a
// checkpoint and the saved answer are one text, and the answer cites only
// sources it was given (docs/API.md, "Consuming attemptEvents").
func citationFilter(sources []sourcePacket) *promptfmt.CitationFilter {
	known := make(map[string]bool, len(sources))
	for _, s := range sources {
		known[s.Label] = true
	}
	return promptfmt.NewCitationFilter(known)
}

// chunkHash is c's stored content hash, or the hash of its content when
// the row has none yet (a SQLite row from before content hashes).
func chunkHash(c *ent.Chunk) string {
	if c.ContentHash != nil {
		return *c.ContentHash
	}
	return contenthash.Of(c.Content)
}
