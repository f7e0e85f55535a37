package prompt

import (
	"strings"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/promptfmt"
	"github.com/ragchat/ragchat/internal/tokens"
)

// Assemble builds the answer prompt of in within in.Budget.
//
// The system rules and the question are always kept, even when they alone
// exceed the budget (everything else is then dropped, as the manifest
// shows). The rest of the budget goes, in this order, to:
//
//  1. evidence, in rank order, as whole chunks: a chunk that does not fit is
//     dropped and smaller later ones are still tried;
//  2. conversation rounds, newest first, whole rounds only, at most
//     MaxRounds and within Budget.History: the first round that does not
//     fit ends the window, so the rounds kept are the most recent ones and
//     contiguous;
//  3. the summary, if it still fits within Budget.History and the total.
//
// Token accounting: every emitted piece (the rules, each section's tags
// with the newlines around them, the question, each evidence block, each
// conversation line with its newline) is counted once, with in.Counter, on
// the exact text emitted, and Manifest.Tokens adds those counts up. Because
// BPE encoders may merge text across a piece boundary (a sentence's final
// punctuation with the following newline), counting System and User whole
// can come out lower than Manifest.Tokens.Total by at most one token per
// piece boundary, and in practice never higher: the budget check is
// conservative. Chat-template framing that an API adds per message (a few
// tokens) is not included.
//
// The cost of Assemble depends only on the evidence and on at most
// MaxRounds+1 rounds, never on how long the conversation is.
func Assemble(in Input) Result {
	c := in.Counter
	if c == nil {
		c = tokens.Default()
	}
	ov := overheadsFor(c)
	lang := ResolveLanguage(in.Language, in.Question)

	a := assembly{in: &in, c: c, ov: ov}
	a.manifest.Tokenizer = c.Name()
	a.manifest.Budget = in.Budget.Total
	a.manifest.RevokedRounds = in.RevokedRounds

	// Always kept: the rules, the question and the knowledge section's
	// frame (present even when empty, so the model sees there is none).
	a.question = neutralize(strings.TrimSpace(in.Question))
	t := &a.manifest.Tokens
	t.System = ov.system[lang]
	t.Question = ov.questionOpen + c.Count(a.question) + ov.questionClose
	t.Evidence = ov.knowledgeOpen + ov.knowledgeClose
	a.remaining = in.Budget.Total - t.System - t.Question - t.Evidence

	a.addEvidence()
	a.addHistory()
	t.Total = t.System + t.Question + t.Evidence + t.History + t.Summary

	return Result{
		System:          SystemRules(lang),
		User:            a.render(),
		Language:        lang,
		Evidence:        a.evidence,
		Rounds:          a.rounds,
		SummaryIncluded: a.summary != "",
		Manifest:        a.manifest,
	}
}

// assembly is the state of one Assemble call.
type assembly struct {
	in        *Input
	c         tokens.Counter
	ov        *overheads
	remaining int // tokens left in the total budget

	question string   // neutralised
	blocks   []string // rendered evidence blocks, in label order
	evidence []Labeled
	lines    []string // conversation lines, newest round first, summary last
	rounds   []Round
	summary  string // rendered summary line, "" when not included
	manifest domain.ContextManifest
}

// addEvidence includes whole evidence chunks in rank order while they fit.
func (a *assembly) addEvidence() {
	t := &a.manifest.Tokens
	n := len(a.in.Evidence)
	a.blocks = make([]string, 0, n)
	a.evidence = make([]Labeled, 0, n)
	a.manifest.ChunkIDs = make([]string, 0, n)
	for i, ev := range a.in.Evidence {
		if a.remaining <= 0 {
			a.manifest.DroppedChunks += len(a.in.Evidence) - i
			return
		}
		label := promptfmt.Label(len(a.blocks) + 1)
		block := promptfmt.EvidenceBlock(label, ev.DocumentTitle, ev.Content)
		cost := a.c.Count(block)
		if len(a.blocks) > 0 {
			cost += a.ov.block
		}
		if cost > a.remaining {
			a.manifest.DroppedChunks++
			continue
		}
		a.remaining -= cost
		t.Evidence += cost
		a.blocks = append(a.blocks, block)
		a.evidence = append(a.evidence, Labeled{Evidence: ev, Label: label})
		a.manifest.ChunkIDs = append(a.manifest.ChunkIDs, ev.ChunkID.String())
	}
}

// addHistory includes the most recent whole rounds, then the summary,
// within the history cap and what is left of the total.
func (a *assembly) addHistory() {
	in, ov, t := a.in, a.ov, &a.manifest.Tokens
	avail := a.remaining
	if in.Budget.History > 0 {
		avail = min(avail, in.Budget.History)
	}
	maxRounds := in.Budget.MaxRounds
	if maxRounds <= 0 {
		maxRounds = DefaultMaxRounds
	}
	a.lines = make([]string, 0, 2*min(maxRounds, len(in.Rounds)))
	frame := ov.convOpen + ov.convClose
	used := 0 // history and summary tokens, frame included

	kept := 0
	for i := len(in.Rounds) - 1; i >= 0 && kept < maxRounds; i-- {
		r := in.Rounds[i]
		user := userPrefix + neutralize(strings.TrimSpace(r.User))
		assistant := assistantPrefix + neutralize(strings.TrimSpace(r.Assistant))
		cost := a.c.Count(user) + a.c.Count(assistant) + 2*ov.line
		if used == 0 {
			cost += frame
		}
		if used+cost > avail {
			break
		}
		used += cost
		kept++
		a.lines = append(a.lines, assistant, user) // reversed at render
	}
	t.History = used
	a.manifest.HistoryRounds = kept
	a.manifest.DroppedRounds = len(in.Rounds) - kept
	if kept > 0 {
		a.rounds = in.Rounds[len(in.Rounds)-kept:]
		a.manifest.HistoryFromSeq = a.rounds[0].UserSeq
		last := a.rounds[kept-1]
		a.manifest.HistoryToSeq = max(last.UserSeq, last.AssistantSeq)
	}

	if s := strings.TrimSpace(in.Summary); s != "" {
		a.manifest.SummaryVersion = in.SummaryVersion
		line := summaryPrefix + neutralize(s)
		cost := a.c.Count(line) + ov.line
		if used == 0 {
			cost += frame
		}
		if used+cost <= avail {
			used += cost
			t.Summary = cost
			a.summary = line
			a.manifest.SummaryIncluded = true
		}
	}
	a.remaining -= used
}

// render writes the user message.
func (a *assembly) render() string {
	var b strings.Builder
	b.Grow(a.size())
	if len(a.lines) > 0 || a.summary != "" {
		var body strings.Builder
		if a.summary != "" {
			body.WriteString(a.summary)
			body.WriteString(lineSep)
		}
		for i := len(a.lines) - 1; i >= 0; i-- {
			body.WriteString(a.lines[i])
			body.WriteString(lineSep)
		}
		conv := body.String()
		b.WriteString(promptfmt.Wrap(promptfmt.ConversationSection, conv[:len(conv)-len(lineSep)]))
		b.WriteString(sectionSep)
	}
	b.WriteString(promptfmt.Wrap(promptfmt.UserInputSection, a.question))
	b.WriteString(sectionSep)
	b.WriteString(promptfmt.Wrap(promptfmt.KnowledgeSection, strings.Join(a.blocks, blockSep)))
	return b.String()
}

// size estimates the user message's length in bytes.
func (a *assembly) size() int {
	n := len(a.question) + len(a.summary) + 256
	for _, s := range a.blocks {
		n += len(s) + len(blockSep)
	}
	for _, s := range a.lines {
		n += len(s) + len(lineSep)
	}
	return n
}

// neutralize is promptfmt.Neutralize without its copy when s holds no "<",
// which every section tag needs.
func neutralize(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	return promptfmt.Neutralize(s)
}
