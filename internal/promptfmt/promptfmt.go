// Package promptfmt defines the wire format of ragchat's answer prompt: the
// labelled sections of docs/ENGINE.md D11 and the evidence block layout. The prompt
// assembler writes it; the offline model reads it back, so both agree on one
// definition.
//
// The user message of an answer prompt is, in order:
//
//	<UNTRUSTED_CONVERSATION_CONTEXT>
//	SUMMARY: …
//	USER: …
//	ASSISTANT (earlier answer, unverified): …
//	</UNTRUSTED_CONVERSATION_CONTEXT>
//
//	<UNTRUSTED_USER_INPUT>
//	the current question
//	</UNTRUSTED_USER_INPUT>
//
//	<AUTHORIZED_KNOWLEDGE_CONTEXT>
//	[C1] Document title
//	chunk text
//
//	[C2] …
//	</AUTHORIZED_KNOWLEDGE_CONTEXT>
package promptfmt

import (
	"fmt"
	"regexp"
	"strings"
)

// Section names. Text inside the two UNTRUSTED sections is data, never
// instructions; the system rules say so.
const (
	ConversationSection = "UNTRUSTED_CONVERSATION_CONTEXT"
	UserInputSection    = "UNTRUSTED_USER_INPUT"
	KnowledgeSection    = "AUTHORIZED_KNOWLEDGE_CONTEXT"
)

// Open returns the opening tag of section.
func Open(section string) string { return "<" + section + ">" }

// Close returns the closing tag of section.
func Close(section string) string { return "</" + section + ">" }

// Wrap returns body inside section's tags, after neutralising any tag in
// body, so that untrusted text cannot close its section early or forge
// another one.
func Wrap(section, body string) string {
	return Open(section) + "\n" + Neutralize(body) + "\n" + Close(section)
}

var tagPattern = regexp.MustCompile(`(?i)<\s*/?\s*(UNTRUSTED_CONVERSATION_CONTEXT|UNTRUSTED_USER_INPUT|AUTHORIZED_KNOWLEDGE_CONTEXT)\s*>`)

// Neutralize rewrites every section tag in s to a harmless look-alike
// ("<UNTRUSTED_USER_INPUT>" becomes "‹UNTRUSTED_USER_INPUT›").
func Neutralize(s string) string {
	return tagPattern.ReplaceAllStringFunc(s, func(m string) string {
		m = strings.ReplaceAll(m, "<", "‹")
		return strings.ReplaceAll(m, ">", "›")
	})
}

// Label returns the citation label of the n-th evidence chunk (1-based):
// "C1", "C2", ….
func Label(n int) string { return fmt.Sprintf("C%d", n) }

// EvidenceBlock renders one evidence chunk for the knowledge section.
func EvidenceBlock(label, title, content string) string {
	title = strings.ReplaceAll(strings.TrimSpace(title), "\n", " ")
	return "[" + label + "] " + Neutralize(title) + "\n" + Neutralize(strings.TrimSpace(content))
}

// Evidence is one evidence chunk read back from a prompt.
type Evidence struct {
	Label   string
	Title   string
	Content string
}

var blockHeader = regexp.MustCompile(`(?m)^\[(C\d+)\] (.*)$`)

// ParseEvidence returns the evidence blocks of the knowledge section of
// prompt, in order.
func ParseEvidence(prompt string) []Evidence {
	body, ok := SectionBody(prompt, KnowledgeSection)
	if !ok {
		return nil
	}
	idx := blockHeader.FindAllStringSubmatchIndex(body, -1)
	out := make([]Evidence, 0, len(idx))
	for i, m := range idx {
		end := len(body)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		out = append(out, Evidence{
			Label:   body[m[2]:m[3]],
			Title:   body[m[4]:m[5]],
			Content: strings.TrimSpace(body[m[1]:end]),
		})
	}
	return out
}

// SectionBody returns the text between section's tags in prompt.
func SectionBody(prompt, section string) (string, bool) {
	start := strings.Index(prompt, Open(section))
	if start < 0 {
		return "", false
	}
	start += len(Open(section))
	end := strings.Index(prompt[start:], Close(section))
	if end < 0 {
		return "", false
	}
	return strings.TrimSpace(prompt[start : start+end]), true
}

var citation = regexp.MustCompile(`\[(C\d+)\]`)

// Citations returns the distinct labels cited in answer ("[C1]"), in order
// of first appearance.
func Citations(answer string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range citation.FindAllStringSubmatch(answer, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// StripUnknownCitations removes every "[Cn]" whose label is not in known
// and reports how many it removed: in one pass from the left, as
// CitationFilter does for an answer that arrives in pieces.
func StripUnknownCitations(answer string, known map[string]bool) (string, int) {
	f := NewCitationFilter(known)
	out := f.Push(answer) + f.Flush()
	return out, f.Removed()
}
