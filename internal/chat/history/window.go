package history

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/chat/summary"
	"github.com/ragchat/ragchat/internal/chat/tree"
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
	// summaryMessage is the ancestor whose path summary the window read
	// (nil: none, or a line's conversation summary).
	summaryMessage *uuid.UUID
	// parent is the message the question follows (nil: a root, or a
	// line's question).
	parent *uuid.UUID
	// ids are the message ids of the rounds kept, by the round's user
	// sequence number: the question's and the answer's.
	ids     map[int64][2]uuid.UUID
	revoked int
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
// messages of the path the question follows (readPath; after the nearest
// summary, for the strategies that say so), paired into whole rounds (a
// USER message with the ASSISTANT answer that follows it on the path;
// failed attempts and system events left out), minus rounds whose answer
// relied on a source the viewer can no longer read (docs/ENGINE.md D13,
// D17), which the same statement tells (selectWindowSources). History is
// the path, never the tree (docs/ENGINE.md, "History on a tree").
func (a *Assembler) loadWindow(ctx context.Context, req Request) (window, error) {
	st := req.Settings
	conv, err := a.windowConversation(ctx, req)
	if err != nil {
		return window{}, err
	}
	plan := planFor(st.StrategyFor(conv.HistoryStrategy), st)
	w := window{plan: plan}
	var p path
	if onTree(req, conv) {
		p, err = a.readPath(ctx, req, conv, plan)
	} else {
		p, err = a.readLine(ctx, req, conv, plan)
	}
	if err != nil {
		return window{}, err
	}
	if plan.summary {
		w.summary, w.summaryVersion, w.summaryMessage = p.summary, p.summaryVersion, p.summaryMessage
	}
	w.parent = req.ParentID
	rounds := p.rounds
	readable, cited, err := windowSourceFlags(p.msgs)
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
	w.ids = make(map[int64][2]uuid.UUID, len(kept))
	for _, r := range kept {
		w.ids[r.UserSeq] = [2]uuid.UUID{r.userID, r.assistantID}
	}
	w.recent = oldestFirst(kept[:min(len(kept), st.HistoryRounds)])
	switch plan.strategy {
	case domain.StrategyPrioritized:
		w.rounds = oldestFirst(kept)
		w.cited = make(map[int64]bool, len(kept))
		for _, r := range kept {
			w.cited[r.UserSeq] = cited[r.attemptID]
			if !r.folded {
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

// path is what one window read found: the messages read (newest first),
// their whole rounds (newest first, at most plan.read) and the summary
// that covers what lies above the rounds not folded yet.
type path struct {
	msgs   []*ent.Message
	rounds []pairedRound
	// summary and summaryVersion are the summary the window continues;
	// summaryMessage the message whose path summary it is (nil: none, or
	// a conversation summary of a line).
	summary        string
	summaryVersion int
	summaryMessage *uuid.UUID
}

// onTree reports whether req's question is answered on the conversation's
// message tree: it follows a message (req.ParentID), or the conversation
// has a current leaf (a first question, a root, has no parent but has
// become the leaf). A conversation with neither but with messages is a
// line written before messages had parents and not converted yet
// (readLine reads it as before).
func onTree(req Request, conv *ent.Conversation) bool {
	return req.ParentID != nil || conv.CurrentLeafID != nil
}

// walkMessages is how many messages a window walk takes at most for
// rounds whole rounds: up to three per round (a question, a failed try, an
// answer) plus slack, a bounded read whatever the conversation's length.
func walkMessages(rounds int) int { return rounds*3 + 4 }

// readPath reads the window on the tree: one statement that walks up the
// path from the message the question follows (req.ParentID; none for a
// root: no history) through its nearest ancestors (tree.Up), the answers'
// attempts and sources' flags joined. For HYBRID and SEMANTIC_SUMMARY the
// walk ends at the nearest ancestor that carries a path summary: that
// summary is the summary used, and only the rounds below it are read. For
// PRIORITIZED the walk takes the newest rounds whatever the summary
// covers, and the nearest summarised ancestor among them (reached within
// the rounds a fold leaves unfolded at most) is the summary; the rounds
// above it are folded. A summary written on another branch is never an
// ancestor, so it is never read. A conversation summary written before
// path summaries counts where the message it covers up to
// (summary_message_sequence) is an ancestor.
func (a *Assembler) readPath(ctx context.Context, req Request, conv *ent.Conversation, plan windowPlan) (path, error) {
	if req.ParentID == nil {
		return path{}, nil
	}
	walk := tree.Walk{Start: *req.ParentID, Limit: walkMessages(plan.read), AtSummary: plan.afterSummary, CoveredSeq: conv.SummaryMessageSequence,
		Conversation: conv.ID}
	if plan.strategy == domain.StrategyPrioritized {
		pending := req.Settings.HistoryRounds + req.Settings.SummaryTriggerRounds + 2
		walk.Limit = walkMessages(max(plan.read, pending))
	}
	q := a.Client.Message.Query().
		Where(tree.Up(walk)). // in conv (walk.Conversation)
		Order(ent.Desc(message.FieldDepth)).
		Select(pathMessageFields...)
	msgs, err := readWindow(ctx, q)
	if err != nil {
		return path{}, err
	}
	p := path{msgs: msgs}
	folded := -1 // the depth of the summarised ancestor; rounds above it are folded
	for _, m := range msgs {
		if m.PathSummary != nil {
			p.summary, p.summaryVersion, folded = *m.PathSummary, m.PathSummaryVersion, m.Depth
			id := m.ID
			p.summaryMessage = &id
			break
		}
		if conv.SummaryMessageSequence > 0 && m.SequenceNo == conv.SummaryMessageSequence {
			p.summary, p.summaryVersion, folded = conv.Summary, conv.SummaryVersion, m.Depth
			break
		}
	}
	p.rounds = pairPath(msgs, plan.read, folded)
	return p, nil
}

// readLine reads the window of a line written before messages had parents
// (onTree is false), as the window was read then: the newest messages
// before the question by sequence number (after the conversation
// summary's coverage, for the strategies that say so), with the
// conversation summary.
func (a *Assembler) readLine(ctx context.Context, req Request, conv *ent.Conversation, plan windowPlan) (path, error) {
	after := int64(0)
	if plan.afterSummary {
		after = conv.SummaryMessageSequence
	}
	q := a.Client.Message.Query().
		Where(
			message.ConversationID(conv.ID),
			message.SequenceNoLT(req.SequenceNo),
			message.SequenceNoGT(after),
			message.RoleIn(message.RoleUSER, message.RoleASSISTANT),
		).
		Order(ent.Desc(message.FieldSequenceNo)).
		Limit(walkMessages(plan.read)).
		Select(windowMessageFields...)
	msgs, err := readWindow(ctx, q)
	if err != nil {
		return path{}, err
	}
	p := path{msgs: msgs, summary: conv.Summary, summaryVersion: conv.SummaryVersion}
	p.rounds = pairRounds(msgs, plan.read)
	for i := range p.rounds {
		p.rounds[i].folded = p.rounds[i].UserSeq <= conv.SummaryMessageSequence
	}
	return p, nil
}

// windowMessageFields are the message columns the window uses
// (pairRounds); joinWindowAttempts adds the three attempt columns it uses
// (pairRounds, summary.Outcome). The rest, such as an attempt's questions,
// answer and usage, stay in the database.
var windowMessageFields = []string{message.FieldSequenceNo, message.FieldRole, message.FieldContent, message.FieldAttemptID}

// pathMessageFields are windowMessageFields and the tree columns the walk
// up a path uses (pairPath, readPath).
var pathMessageFields = append(append([]string(nil), windowMessageFields...),
	message.FieldParentID, message.FieldDepth, message.FieldPathSummary, message.FieldPathSummaryVersion)

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
	userID, assistantID uuid.UUID
	attemptID           uuid.UUID
	attempt             *ent.Attempt
	// folded: the summary the window read covers the round already.
	folded bool
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
		rounds = append(rounds, newRound(m, a))
		if len(rounds) == max {
			break
		}
	}
	return rounds
}

// newRound is the round of question u and its answer a.
func newRound(u, a *ent.Message) pairedRound {
	return pairedRound{
		Round:  prompt.Round{UserSeq: u.SequenceNo, AssistantSeq: a.SequenceNo, User: u.Content, Assistant: a.Content},
		userID: u.ID, assistantID: a.ID,
		attemptID: *a.AttemptID,
		attempt:   a.Edges.Attempt,
	}
}

// pairPath pairs the messages of a path (newest first: each message's
// parent is the next one) into at most max whole rounds, newest first. A
// USER message pairs with the message that follows it on the path when
// that is an ASSISTANT answer whose attempt answers it; a USER message
// followed by another question, or by nothing (failed or still pending),
// is left out, and so are the regenerated answers on other branches (they
// are not on the path). Rounds whose question lies at or above depth
// folded are marked folded.
func pairPath(msgs []*ent.Message, max, folded int) []pairedRound {
	var rounds []pairedRound
	for i := 1; i < len(msgs) && len(rounds) < max; i++ {
		u, a := msgs[i], msgs[i-1]
		if u.Role != message.RoleUSER || a.Role != message.RoleASSISTANT || a.Edges.Attempt == nil ||
			a.Edges.Attempt.UserMessageID != u.ID || a.ParentID == nil || *a.ParentID != u.ID {
			continue
		}
		r := newRound(u, a)
		r.folded = u.Depth <= folded
		rounds = append(rounds, r)
	}
	return rounds
}
