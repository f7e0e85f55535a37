package prompt

import (
	"sync"

	"github.com/ragchat/ragchat/internal/promptfmt"
	"github.com/ragchat/ragchat/internal/tokens"
)

// Fixed texts of the user message. Sections are separated by a blank line;
// a section is its open tag and a newline, its body, and a newline and its
// close tag (promptfmt.Wrap).
const (
	sectionSep = "\n\n"
	lineSep    = "\n"
	blockSep   = "\n\n"

	// The conversation's line labels say whose words a line holds, so
	// that the rules' fact priority can refer to them: the user's own
	// statements, the summary, and earlier answers, which are not a
	// source (docs/ENGINE.md D10).
	summaryPrefix   = "SUMMARY: "
	userPrefix      = "USER: "
	assistantPrefix = "ASSISTANT (earlier answer, unverified): "
)

// overheads holds the token counts of the fixed texts for one counter.
// Each piece is counted together with the newlines that follow it, because
// BPE encoders merge punctuation with following newlines (">\n" can be one
// token).
type overheads struct {
	rules map[rulesKey]int // the rules of each language and form

	// Conversation section: "<TAG>\n" before the lines (each line is
	// counted with its own trailing newline) and "</TAG>\n\n" after.
	convOpen, convClose int
	// Question section: "<TAG>\n" + question + "\n</TAG>\n\n".
	questionOpen, questionClose int
	// Knowledge section: "<TAG>\n" + blocks + "\n</TAG>".
	knowledgeOpen, knowledgeClose int

	line    int // the newline after a conversation line
	block   int // the blank line between evidence blocks
	omitted int // an omitted assistant answer's line with its newline
}

// rulesKey names one text of the rules: its language and form.
type rulesKey struct{ lang, form string }

// overheadCache maps Counter.Name() to *overheads.
var overheadCache sync.Map

// overheadsFor returns the cached overheads of c, computing them on first
// use.
func overheadsFor(c tokens.Counter) *overheads {
	if o, ok := overheadCache.Load(c.Name()); ok {
		return o.(*overheads)
	}
	conv, question, knowledge := promptfmt.ConversationSection, promptfmt.UserInputSection, promptfmt.KnowledgeSection
	o := &overheads{
		rules:          make(map[rulesKey]int, 4),
		convOpen:       c.Count(promptfmt.Open(conv) + "\n"),
		convClose:      c.Count(promptfmt.Close(conv) + sectionSep),
		questionOpen:   c.Count(promptfmt.Open(question) + "\n"),
		questionClose:  c.Count("\n" + promptfmt.Close(question) + sectionSep),
		knowledgeOpen:  c.Count(promptfmt.Open(knowledge) + "\n"),
		knowledgeClose: c.Count("\n" + promptfmt.Close(knowledge)),
		line:           c.Count(lineSep),
		block:          c.Count(blockSep),
		omitted:        c.Count(assistantPrefix+omittedAnswer) + c.Count(lineSep),
	}
	for _, lang := range []string{Chinese, English} {
		for _, form := range []string{RulesFull, RulesCompact} {
			o.rules[rulesKey{lang, form}] = c.Count(Rules(lang, form))
		}
	}
	actual, _ := overheadCache.LoadOrStore(c.Name(), o)
	return actual.(*overheads)
}
