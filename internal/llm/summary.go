package llm

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/llm/internal/text"
)

// The labels of a summary line (docs/ENGINE.md "Summarisers"). A summary
// keeps what the user stated apart from what became of the question: the
// user's own words are facts about the user, the outcome is never an
// answer's content (docs/ENGINE.md D10).
const (
	LabelUserStatedZH       = "用户陈述："
	LabelUserAskedZH        = "用户问："
	LabelAssistantOutcomeZH = "助手回答结果："
	LabelUserStatedEN       = "User stated: "
	LabelUserAskedEN        = "User asked: "
	LabelAssistantOutcomeEN = "Assistant outcome: "
)

// Limits on how much of a user turn a summary line keeps verbatim; the key
// entities of a cut part are appended so that none is lost.
const (
	summaryStatementRunes = 200
	summaryQuestionRunes  = 120
)

// SummaryLine renders one folded round as one line, in the language of the
// user's turn: "用户陈述：…；用户问：…；助手回答结果：已回答" or "User stated:
// …; User asked: …; Assistant outcome: answered". Statements (constraints
// and facts the user gave) and questions are the user's words, kept nearly
// verbatim; the outcome says only what became of the question. An empty
// turn renders as "".
func SummaryLine(it SummaryItem) string {
	turn := strings.Join(strings.Fields(it.Question), " ")
	if turn == "" {
		return ""
	}
	statements, questions := SplitUserTurn(turn)
	zh := text.HasHan(turn)
	var parts []string
	add := func(zhLabel, enLabel string, sentences []string, limit int) {
		if len(sentences) == 0 {
			return
		}
		sep := " "
		label := enLabel
		if zh {
			sep, label = "", zhLabel
		}
		joined := strings.Join(sentences, sep)
		if limit == summaryStatementRunes {
			joined = strings.TrimRight(joined, "。.；;")
		}
		parts = append(parts, label+ClipKeepingEntities(joined, limit))
	}
	add(LabelUserStatedZH, LabelUserStatedEN, statements, summaryStatementRunes)
	add(LabelUserAskedZH, LabelUserAskedEN, questions, summaryQuestionRunes)
	if zh {
		return strings.Join(parts, "；") + "；" + LabelAssistantOutcomeZH + OutcomeText(it.Outcome, true)
	}
	return strings.Join(parts, "; ") + "; " + LabelAssistantOutcomeEN + OutcomeText(it.Outcome, false)
}

// OutcomeText renders an engine outcome ("answered", "refused: <reason>",
// "failed", "cancelled") in Chinese or English.
func OutcomeText(o string, zh bool) string {
	o = strings.TrimSpace(o)
	if !zh {
		if o == "" {
			return "unknown"
		}
		return o
	}
	head, reason, _ := strings.Cut(strings.ToLower(o), ":")
	reason = strings.TrimSpace(reason)
	switch strings.TrimSpace(head) {
	case "answered":
		return "已回答"
	case "refused":
		switch reason {
		case "":
			return "已拒答"
		case "no evidence", "no authorised evidence", "no authorized evidence", "no_authorized_evidence":
			return "已拒答（无授权资料）"
		default:
			return "已拒答（" + reason + "）"
		}
	case "failed":
		return "未完成"
	case "cancelled", "canceled":
		return "已取消"
	case "":
		return "未知"
	default:
		return o
	}
}

// SplitUserTurn splits a user turn into sentences and sorts them into
// statements (facts and constraints the user gave) and questions, each in
// their order. A sentence is a question when it ends with a question mark
// or, without one, reads as a question (Chinese question words or a final
// 吗/呢; an English interrogative first word).
func SplitUserTurn(turn string) (statements, questions []string) {
	for _, s := range sentences(turn) {
		if isQuestion(s) {
			questions = append(questions, s)
		} else {
			statements = append(statements, s)
		}
	}
	return statements, questions
}

// sentences cuts s after each sentence terminator (。！？!?；; and a
// period followed by a space or the end).
func sentences(s string) []string {
	var out []string
	var b strings.Builder
	rs := []rune(s)
	flush := func() {
		if t := strings.TrimSpace(b.String()); t != "" {
			out = append(out, t)
		}
		b.Reset()
	}
	for i, r := range rs {
		b.WriteRune(r)
		switch r {
		case '。', '！', '？', '!', '?', '；', ';', '\n':
			flush()
		case '.':
			if i+1 == len(rs) || unicode.IsSpace(rs[i+1]) {
				flush()
			}
		}
	}
	flush()
	return out
}

var (
	zhQuestionWords = []string{"什么", "多少", "怎么", "怎样", "如何", "为什么", "为何", "哪", "几", "是否", "能否", "可否", "有没有", "是不是", "会不会", "多久", "多长", "多大"}
	enQuestionWords = map[string]bool{
		"what": true, "how": true, "why": true, "when": true, "where": true, "which": true, "who": true, "whom": true, "whose": true,
		"can": true, "could": true, "is": true, "are": true, "do": true, "does": true, "did": true, "should": true, "would": true,
		"will": true, "may": true, "shall": true, "was": true, "were": true, "have": true, "has": true,
	}
)

// isQuestion reports whether the sentence s asks something.
func isQuestion(s string) bool {
	last, _ := utf8.DecodeLastRuneInString(s)
	switch last {
	case '?', '？':
		return true
	case '。', '.', '！', '!':
		return false
	}
	if text.HasHan(s) {
		t := strings.TrimRight(s, "；; ")
		if strings.HasSuffix(t, "吗") || strings.HasSuffix(t, "呢") {
			return true
		}
		for _, w := range zhQuestionWords {
			if strings.Contains(t, w) {
				return true
			}
		}
		return false
	}
	first := strings.ToLower(strings.TrimFunc(strings.SplitN(s, " ", 2)[0], func(r rune) bool { return !unicode.IsLetter(r) }))
	return enQuestionWords[first]
}

// clipKeepingEntities cuts s to limit runes; when it cuts, it appends the
// key entities of the cut part, so that a long turn keeps its numbers and
// codes.
func ClipKeepingEntities(s string, limit int) string {
	r := []rune(s)
	if len(r) <= limit {
		return s
	}
	kept := string(r[:limit])
	var extra []string
	for _, e := range KeyEntities(s) {
		if len(MissingEntities(kept, []string{e})) > 0 {
			extra = append(extra, e)
		}
	}
	if len(extra) == 0 {
		return kept + "…"
	}
	return kept + "…（" + strings.Join(extra, ", ") + "）"
}
