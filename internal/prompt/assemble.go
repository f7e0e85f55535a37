package prompt

import (
	"strings"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/promptfmt"
	"github.com/ragchat/ragchat/internal/tokens"
)

// Assemble builds the answer prompt of in within in.Budget.
//
// The system rules, the question and the request's framing
// (in.Budget.Framing) are always kept, even when they alone exceed the
// budget (everything else is then dropped, as the manifest shows). The
// rules come in their full form, or in their compact form when the full
// rules would take more than their share of the window (chooseRules). The
// rest of the usable window is split by in.Budget.Ratios (splitBudget) and
// spent on:
//
//  1. evidence, in rank order, as whole chunks within the evidence limit:
//     the top chunk, when it does not fit whole, is trimmed to fit (and
//     listed in Manifest.TrimmedChunkIDs) unless not even MinTrimmedTokens
//     of it would; any other chunk that does not fit is dropped and
//     smaller later ones are still tried;
//  2. the conversation, within everything evidence left: at most MaxRounds
//     rounds (those of highest priority) and the summary. When they do not
//     fit, cuts follow the fact priority (docs/ENGINE.md D10): old
//     assistant answers are shortened, then omitted (lowest priority, then
//     oldest, first), then the summary is dropped, and only then whole
//     rounds in the same order, so the user's own turns go last.
//
// Token accounting: every emitted piece (the rules, each section's tags
// with the newlines around them, the question, each evidence block, each
// conversation line with its newline) is counted once, with in.Counter, on
// the exact text emitted, and Manifest.Tokens adds those counts up. Because
// BPE encoders may merge text across a piece boundary (a sentence's final
// punctuation with the following newline), counting System and User whole
// can come out lower than Manifest.Tokens.Total by at most one token per
// piece boundary, and in practice never higher: the budget check is
// conservative. The chat template's framing around the two messages is
// not text Assemble emits: it is in.Budget.Framing, counted as given
// (Manifest.Tokens.Framing), so that Manifest.Tokens.Total is the whole
// request and stays within in.Budget.Total like the rest.
//
// The cost of Assemble depends only on the evidence and on at most
// MaxRounds rounds, never on how long the conversation is.
func Assemble(in Input) Result {
	c := in.Counter
	if c == nil {
		c = tokens.Default()
	}
	ov := overheadsFor(c)
	lang := ResolveLanguage(in.Language, in.Question)
	form := chooseRules(in.Budget, ov, lang)

	a := assembly{in: &in, c: c, ov: ov}
	a.manifest.Tokenizer = c.Name()
	a.manifest.Budget = in.Budget.Total
	a.manifest.RevokedRounds = in.RevokedRounds
	a.manifest.Rules = form

	// Always kept: the rules, the question and the knowledge section's
	// frame (present even when empty, so the model sees there is none).
	a.question = neutralize(strings.TrimSpace(in.Question))
	t := &a.manifest.Tokens
	t.System = ov.rules[rulesKey{lang, form}]
	t.Framing = max(0, in.Budget.Framing)
	t.Question = ov.questionOpen + c.Count(a.question) + ov.questionClose
	t.Evidence = ov.knowledgeOpen + ov.knowledgeClose
	fixed := t.System + t.Framing + t.Question + t.Evidence
	rest := max(0, in.Budget.Total-fixed)

	h := a.prepareHistory()
	sp := splitBudget(in.Budget, t.System+t.Framing, t.Question+t.Evidence, h.demand())
	a.remaining = sp.evidence
	a.addEvidence()
	histLimit := historyAfter(in.Budget, rest, t.Evidence-ov.knowledgeOpen-ov.knowledgeClose)
	a.addHistory(h, histLimit)
	t.Total = t.System + t.Framing + t.Question + t.Evidence + t.History + t.Summary
	a.manifest.Limits = domain.SectionTokens{
		System: sp.system, Question: sp.input, Evidence: sp.evidence, History: histLimit, Total: in.Budget.Total,
	}

	return Result{
		System:          Rules(lang, form),
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
	remaining int // tokens evidence may still use

	question string   // neutralised
	blocks   []string // rendered evidence blocks, in label order
	evidence []Labeled
	lines    []string // conversation lines, oldest first, without the summary
	rounds   []Round
	summary  string // rendered summary line, "" when not included
	manifest domain.ContextManifest
}

// chooseRules returns the form of the rules in lang for budget b: the full
// rules when they fit the rules' share of the usable window
// (b.Ratios.System), the compact rules when they do not and are cheaper.
// Without ratios there are no shares, and the full rules are used.
func chooseRules(b Budget, ov *overheads, lang string) string {
	full, compact := ov.rules[rulesKey{lang, RulesFull}], ov.rules[rulesKey{lang, RulesCompact}]
	if b.Ratios == (domain.BudgetRatios{}) || full <= int(float64(max(0, b.Total))*b.Ratios.System) || compact >= full {
		return RulesFull
	}
	return RulesCompact
}

// addEvidence includes whole evidence chunks in rank order while they fit;
// the top chunk is trimmed to fit when it does not fit whole.
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
		trimmed := false
		if cost > a.remaining {
			if i > 0 {
				a.manifest.DroppedChunks++
				continue
			}
			b, content, c, ok := a.trimBlock(ev, label, a.remaining)
			if !ok {
				a.manifest.DroppedChunks++
				continue
			}
			block, cost, trimmed = b, c, true
			ev.Content = content
			a.manifest.TrimmedChunkIDs = append(a.manifest.TrimmedChunkIDs, ev.ChunkID.String())
		}
		a.remaining -= cost
		t.Evidence += cost
		a.blocks = append(a.blocks, block)
		a.evidence = append(a.evidence, Labeled{Evidence: ev, Label: label, Trimmed: trimmed})
		a.manifest.ChunkIDs = append(a.manifest.ChunkIDs, ev.ChunkID.String())
	}
}

// addHistory cuts h to limit (history.fit) and records what was kept.
func (a *assembly) addHistory(h *history, limit int) {
	in, t := a.in, &a.manifest.Tokens
	h.fit(limit)
	used := h.used()
	t.History = used - h.summaryCost()
	if h.summaryKept {
		t.Summary = h.summaryCost()
		a.summary = h.summaryLine
		a.manifest.SummaryIncluded = true
	}
	if strings.TrimSpace(in.Summary) != "" {
		a.manifest.SummaryVersion = in.SummaryVersion
	}
	kept := h.kept()
	a.lines = make([]string, 0, 2*len(kept))
	a.rounds = make([]Round, 0, len(kept))
	for _, r := range kept {
		a.lines = append(a.lines, r.userLine, r.answerLine())
		a.rounds = append(a.rounds, r.Round)
		state := r.answerState()
		switch state {
		case domain.AnswerShortened:
			a.manifest.ShortenedAnswers++
		case domain.AnswerOmitted:
			a.manifest.OmittedAnswers++
		}
		a.manifest.Rounds = append(a.manifest.Rounds, domain.ManifestRound{
			UserSeq: r.UserSeq, AssistantSeq: r.AssistantSeq, Answer: state,
		})
	}
	a.manifest.HistoryRounds = len(kept)
	a.manifest.DroppedRounds = len(in.Rounds) - len(kept)
	if len(kept) > 0 {
		a.manifest.HistoryFromSeq = kept[0].UserSeq
		last := kept[len(kept)-1]
		a.manifest.HistoryToSeq = max(last.UserSeq, last.AssistantSeq)
	}
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
		for _, l := range a.lines {
			body.WriteString(l)
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
