package history

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/chat/summary"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/prompt"
)

// window is the part of a conversation's history a prompt may use, as its
// history strategy reads it (docs/ENGINE.md, "History strategies"): recent
// whole rounds that are still authorised, and the rolling summary.
type window struct {
	plan windowPlan
	// rounds are the rounds offered to the answer prompt, oldest first
	// (PRIORITIZED: every candidate, before the choice).
	rounds []prompt.Round
	// recent are the newest rounds read (at most HistoryRounds), oldest
	// first: what the rewrite of a follow-up looks at first
	// (rewriteRequest).
	recent []prompt.Round
	// cited marks, by the round's user sequence number, the rounds whose
	// answer cited evidence.
	cited map[int64]bool
	// unfolded are the rounds read that the summariser has not folded yet,
	// newest first (PRIORITIZED: those it does not choose join the
	// summary).
	unfolded       []pairedRound
	summary        string
	summaryVersion int
	revoked        int
}

// llmRounds returns the recent rounds in the rewriter's shape.
func (w window) llmRounds() []llm.Round {
	out := make([]llm.Round, len(w.recent))
	for i, r := range w.recent {
		out[i] = llm.Round{User: r.User, Assistant: r.Assistant}
	}
	return out
}

// loadWindow loads only the window, never the whole history, so its cost
// does not grow with the conversation (docs/ENGINE.md D2, D6): the newest
// messages (after the summary's coverage, for the strategies that say so),
// paired into whole rounds (a USER message with its latest COMPLETED
// answer; failed attempts and system events left out), minus rounds whose
// answer relied on a source the viewer can no longer read (docs/ENGINE.md
// D13, D17), which the same statement tells (selectWindowSources).
func (a *Assembler) loadWindow(ctx context.Context, req Request) (window, error) {
	st := req.Settings
	conv, err := a.windowConversation(ctx, req)
	if err != nil {
		return window{}, err
	}
	plan := planFor(st.StrategyFor(conv.HistoryStrategy), st)
	w := window{plan: plan}
	after := int64(0)
	if plan.afterSummary {
		after = conv.SummaryMessageSequence
	}
	if plan.summary {
		w.summary, w.summaryVersion = conv.Summary, conv.SummaryVersion
	}
	// Up to three messages per round (a question, a failed try, an answer)
	// plus slack: a bounded read whatever the conversation's length.
	var msgs []*ent.Message
	q := a.Client.Message.Query().
		Where(
			message.ConversationID(conv.ID),
			message.SequenceNoLT(req.SequenceNo),
			message.SequenceNoGT(after),
			message.RoleIn(message.RoleUSER, message.RoleASSISTANT),
		).
		Order(ent.Desc(message.FieldSequenceNo)).
		Limit(plan.read*3 + 4).
		Select(windowMessageFields...)
	msgs, err = q.Modify(joinWindowAttempts, selectWindowSources(ctx)).All(ctx)
	if err == nil {
		err = attachWindowAttempts(msgs)
	}
	if err != nil {
		return window{}, err
	}
	rounds := pairRounds(msgs, plan.read)
	readable, cited, err := windowSourceFlags(msgs)
	if err != nil {
		return window{}, err
	}
	var kept []pairedRound // newest first
	for _, r := range rounds {
		if !readable[r.attemptID] {
			w.revoked++
			continue
		}
		kept = append(kept, r)
	}
	w.recent = oldestFirst(kept[:min(len(kept), st.HistoryRounds)])
	switch plan.strategy {
	case domain.StrategyPrioritized:
		w.rounds = oldestFirst(kept)
		w.cited = make(map[int64]bool, len(kept))
		for _, r := range kept {
			w.cited[r.UserSeq] = cited[r.attemptID]
			if r.UserSeq > conv.SummaryMessageSequence {
				w.unfolded = append(w.unfolded, r)
			}
		}
	case domain.StrategySlidingWindow:
		w.rounds = oldestFirst(kept)
	default:
		// HYBRID and SEMANTIC_SUMMARY: the newest plan.verbatim rounds
		// verbatim; the older ones read, which the summariser has not
		// folded yet, join the summary.
		n := min(len(kept), plan.verbatim)
		w.rounds = oldestFirst(kept[:n])
		w.summary = withPendingRounds(w.summary, kept[n:], st.SummaryMaxChars)
	}
	return w, nil
}

// windowMessageFields are the message columns the window uses
// (pairRounds); joinWindowAttempts adds the three attempt columns it uses
// (pairRounds, summary.Outcome). The rest, such as an attempt's questions,
// answer and usage, stay in the database.
var windowMessageFields = []string{message.FieldSequenceNo, message.FieldRole, message.FieldContent, message.FieldAttemptID}

// windowConversation returns the conversation whose window req reads. A
// preview has just read it in the same call; an answer run reads it again
// (Request.Reread), since the run may have waited in the queue while the
// summariser moved the summary on (the summary and its coverage always
// come from one read).
func (a *Assembler) windowConversation(ctx context.Context, req Request) (*ent.Conversation, error) {
	if !req.Reread {
		return req.Conversation, nil
	}
	return a.Client.Conversation.Get(ctx, req.Conversation.ID)
}

// oldestFirst returns the rounds of rs (newest first) oldest first.
func oldestFirst(rs []pairedRound) []prompt.Round {
	out := make([]prompt.Round, len(rs))
	for i, r := range rs {
		out[len(rs)-1-i] = r.Round
	}
	return out
}

// withPendingRounds appends to the summary previous one deterministic line
// per round of pending (newest first) that the summariser has not folded
// yet: the question and its outcome, never the answer text (docs/ENGINE.md
// D8).
func withPendingRounds(previous string, pending []pairedRound, maxChars int) string {
	if len(pending) == 0 {
		return previous
	}
	items := make([]llm.SummaryItem, 0, len(pending))
	for i := len(pending) - 1; i >= 0; i-- {
		r := pending[i]
		items = append(items, llm.SummaryItem{Question: r.User, Outcome: summary.Outcome([]*ent.Attempt{r.attempt})})
	}
	return summary.Deterministic(previous, items, maxChars)
}

// pairedRound is a whole round plus the attempt that answered it.
type pairedRound struct {
	prompt.Round
	attemptID uuid.UUID
	attempt   *ent.Attempt
}

// pairRounds pairs messages (newest first) into at most max whole rounds,
// newest first. Each USER message takes its latest ASSISTANT answer; a USER
// message with no answer (failed or still pending) is left out.
func pairRounds(msgs []*ent.Message, max int) []pairedRound {
	latest := map[uuid.UUID]*ent.Message{} // user message id → newest answer
	for _, m := range msgs {
		if m.Role != message.RoleASSISTANT || m.Edges.Attempt == nil {
			continue
		}
		uid := m.Edges.Attempt.UserMessageID
		if _, seen := latest[uid]; !seen {
			latest[uid] = m
		}
	}
	var rounds []pairedRound
	for _, m := range msgs {
		if m.Role != message.RoleUSER {
			continue
		}
		a, ok := latest[m.ID]
		if !ok {
			continue
		}
		rounds = append(rounds, pairedRound{
			Round:     prompt.Round{UserSeq: m.SequenceNo, AssistantSeq: a.SequenceNo, User: m.Content, Assistant: a.Content},
			attemptID: *a.AttemptID,
			attempt:   a.Edges.Attempt,
		})
		if len(rounds) == max {
			break
		}
	}
	return rounds
}
