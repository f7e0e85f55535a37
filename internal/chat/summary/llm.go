package summary

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/tokens"
)

// chunkItems bounds one summarisation call to about twenty rounds, the
// context-engineering article's chunk; SummaryChunkTokens bounds its
// tokens (docs/ENGINE.md "Summarisers").
const chunkItems = 20

// callTries is how often one summarisation call is made before the fold
// falls back to the deterministic summary.
const callTries = 3

// retryDelay is the first backoff after a failed call (doubled per try);
// a summary that fails the checks is retried at once.
var retryDelay = 200 * time.Millisecond

// llmSummary folds items into base with the chat model model. Input that
// fits one call (at most SummaryChunkTokens tokens, counted with the
// model's tokenizer, and at most chunkItems rounds, with base) takes one
// call. Longer input is cut into chunks of whole rounds, each summarised
// alone, and one more call merges the chunk summaries into base. Every
// call's result must pass checkSummary; a call is tried callTries times.
// It reports false when any call fails for good, so that the caller falls
// back.
func (s *Summarizer) llmSummary(ctx context.Context, base string, items []llm.SummaryItem, st domain.TenantSettings, model Model) (string, bool) {
	chunks, oneCall := chunk(base, items, tokens.ForModel(model.Name), st.SummaryChunkTokens)
	req := func(previous string, items []llm.SummaryItem, parts []string, keep []llm.SummaryItem) llm.SummarizeRequest {
		return llm.SummarizeRequest{
			Previous: previous, Items: items, Parts: parts, Keep: entities(keep),
			MaxChars: st.SummaryMaxChars, Model: model.Name,
		}
	}
	if oneCall {
		return s.call(ctx, model, req(base, items, nil, items), items)
	}
	parts := make([]string, len(chunks))
	for i, c := range chunks {
		out, ok := s.call(ctx, model, req("", c, nil, c), c)
		if !ok {
			return "", false
		}
		parts[i] = out
	}
	return s.call(ctx, model, req(base, nil, parts, items), items)
}

// chunk cuts items into consecutive chunks of whole rounds. When base and
// items together fit limit tokens and chunkItems rounds, oneCall is true
// and the only chunk is items. Otherwise the chunks have at most
// chunkItems rounds and limit tokens each (a round larger than limit is a
// chunk of its own), and are to be merged into base.
func chunk(base string, items []llm.SummaryItem, counter tokens.Counter, limit int) (chunks [][]llm.SummaryItem, oneCall bool) {
	cost := make([]int, len(items))
	total := counter.Count(base)
	for i, it := range items {
		cost[i] = counter.Count(llm.SummaryLine(it))
		total += cost[i]
	}
	if total <= limit && len(items) <= chunkItems {
		return [][]llm.SummaryItem{items}, true
	}
	start, size := 0, 0
	for i := range items {
		if i > start && (size+cost[i] > limit || i-start == chunkItems) {
			chunks = append(chunks, items[start:i])
			start, size = i, 0
		}
		size += cost[i]
	}
	return append(chunks, items[start:]), false
}

// call makes one summarisation call, retried up to callTries times: after
// an error with backoff, after a failed check at once. items are the
// rounds the result must account for.
func (s *Summarizer) call(ctx context.Context, model Model, req llm.SummarizeRequest, items []llm.SummaryItem) (string, bool) {
	delay := retryDelay
	for try := 1; try <= callTries; try++ {
		out, err := s.summarizer(model).Summarize(ctx, req)
		if err == nil {
			out = capRunes(strings.TrimSpace(out), req.MaxChars)
			if err = checkSummary(out, req.Keep, items); err == nil {
				return out, true
			}
			s.Log.WarnContext(ctx, "summary rejected", "try", try, "err", err)
			continue
		}
		if ctx.Err() != nil {
			return "", false
		}
		s.Log.WarnContext(ctx, "summary attempt failed", "try", try, "err", err)
		if try == callTries {
			break
		}
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

// checkSummary validates a model's summary (docs/ENGINE.md "Summarisers"):
// it is not empty, it contains every key entity of the summarised rounds
// (keep), and when the user stated facts with key entities in those rounds
// ("my order is 12345") it marks them as the user's (the user-stated
// label), apart from the assistant's outcomes. Statements without an
// entity (a greeting) may be dropped, so they do not require the label.
func checkSummary(summary string, keep []string, items []llm.SummaryItem) error {
	if summary == "" {
		return fmt.Errorf("empty summary")
	}
	if missing := llm.MissingEntities(summary, keep); len(missing) > 0 {
		return fmt.Errorf("summary lost key entities %v", missing)
	}
	for _, it := range items {
		statements, _ := llm.SplitUserTurn(it.Question)
		if len(llm.KeyEntities(strings.Join(statements, " "))) == 0 {
			continue
		}
		if !strings.Contains(summary, llm.LabelUserStatedZH) && !strings.Contains(summary, strings.TrimSpace(llm.LabelUserStatedEN)) {
			return fmt.Errorf("summary does not mark what the user stated")
		}
		break
	}
	return nil
}

// entities lists the key entities of the rounds' user turns, in order,
// without duplicates.
func entities(items []llm.SummaryItem) []string {
	var b strings.Builder
	for _, it := range items {
		b.WriteString(it.Question)
		b.WriteString("\n")
	}
	return llm.KeyEntities(b.String())
}
