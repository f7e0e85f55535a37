package chat

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/prompt"
)

// window is the part of a conversation's history a prompt may use: recent
// whole rounds that are still authorised, and the rolling summary.
type window struct {
	rounds         []prompt.Round
	maxRounds      int
	summary        string
	summaryVersion int
	revoked        int
}

// llmRounds returns the rounds in the rewriter's shape.
func (w window) llmRounds() []llm.Round {
	out := make([]llm.Round, len(w.rounds))
	for i, r := range w.rounds {
		out[i] = llm.Round{User: r.User, Assistant: r.Assistant}
	}
	return out
}

// loadWindow loads only the window, never the whole history, so its cost
// does not grow with the conversation (docs/ENGINE.md D2, D6): the newest
// messages after the summary's coverage, paired into whole rounds (a USER
// message with its latest COMPLETED answer; failed attempts and system
// events left out), minus rounds whose answer relied on a source the
// viewer can no longer read (docs/ENGINE.md D13, D17).
func (e *Engine) loadWindow(ctx context.Context, j job) (window, error) {
	st := j.settings
	conv, err := e.client.Conversation.Get(ctx, j.conv.ID)
	if err != nil {
		return window{}, err
	}
	w := window{maxRounds: st.HistoryRounds}
	after := conv.SummaryMessageSequence
	if !st.HistoryStrategy.UsesSummary() {
		after = 0
	} else {
		w.summary, w.summaryVersion = conv.Summary, conv.SummaryVersion
	}
	// Up to three messages per round (a question, a failed try, an answer)
	// plus slack: a bounded read whatever the conversation's length.
	msgs, err := e.client.Message.Query().
		Where(
			message.ConversationID(conv.ID),
			message.SequenceNoLT(j.msg.SequenceNo),
			message.SequenceNoGT(after),
			message.RoleIn(message.RoleUSER, message.RoleASSISTANT),
		).
		Order(ent.Desc(message.FieldSequenceNo)).
		Limit(w.maxRounds*3 + 4).
		WithAttempt().
		All(ctx)
	if err != nil {
		return window{}, err
	}
	rounds, answers := pairRounds(msgs, w.maxRounds)
	readable, err := e.readableAnswers(ctx, answers)
	if err != nil {
		return window{}, err
	}
	for _, r := range rounds {
		if !readable[r.attemptID] {
			w.revoked++
			continue
		}
		w.rounds = append(w.rounds, r.Round)
	}
	// pairRounds works newest first; prompts want oldest first.
	for i, k := 0, len(w.rounds)-1; i < k; i, k = i+1, k-1 {
		w.rounds[i], w.rounds[k] = w.rounds[k], w.rounds[i]
	}
	return w, nil
}

// pairedRound is a whole round plus the attempt that answered it.
type pairedRound struct {
	prompt.Round
	attemptID uuid.UUID
}

// pairRounds pairs messages (newest first) into at most max whole rounds,
// newest first. Each USER message takes its latest ASSISTANT answer; a USER
// message with no answer (failed or still pending) is left out.
func pairRounds(msgs []*ent.Message, max int) ([]pairedRound, []uuid.UUID) {
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
	var attempts []uuid.UUID
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
		})
		attempts = append(attempts, *a.AttemptID)
		if len(rounds) == max {
			break
		}
	}
	return rounds, attempts
}

// readableAnswers reports, per attempt, whether every source its answer was
// given is still readable by the viewer. Two queries whatever the count:
// the attempts' sources, then which of their chunks the viewer may read
// (privacy-filtered). A source whose chunk was deleted is unreadable.
func (e *Engine) readableAnswers(ctx context.Context, attempts []uuid.UUID) (map[uuid.UUID]bool, error) {
	out := make(map[uuid.UUID]bool, len(attempts))
	for _, id := range attempts {
		out[id] = true
	}
	if len(attempts) == 0 {
		return out, nil
	}
	srcs, err := e.client.Source.Query().
		Where(source.AttemptIDIn(attempts...)).
		Select(source.FieldAttemptID, source.FieldChunkID).
		All(ctx)
	if err != nil {
		return nil, err
	}
	var chunkIDs []uuid.UUID
	for _, s := range srcs {
		if s.ChunkID == nil {
			out[s.AttemptID] = false
			continue
		}
		chunkIDs = append(chunkIDs, *s.ChunkID)
	}
	ok, err := e.readableChunks(ctx, chunkIDs)
	if err != nil {
		return nil, err
	}
	for _, s := range srcs {
		if s.ChunkID != nil && !ok[*s.ChunkID] {
			out[s.AttemptID] = false
		}
	}
	return out, nil
}
