package summary

import (
	"strings"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/internal/llm"
)

// Deterministic is the deterministic summariser: it appends one line per
// item (llm.SummaryLine: "用户陈述：…；用户问：…；助手回答结果：…") to
// previous and keeps the newest lines within maxChars.
func Deterministic(previous string, items []llm.SummaryItem, maxChars int) string {
	var lines []string
	for _, l := range strings.Split(previous, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	for _, it := range items {
		if l := llm.SummaryLine(it); l != "" {
			lines = append(lines, l)
		}
	}
	total := 0
	start := len(lines)
	for start > 0 {
		n := len([]rune(lines[start-1])) + 1
		if total+n > maxChars {
			break
		}
		total += n
		start--
	}
	if start == len(lines) && len(lines) > 0 {
		return capRunes(lines[len(lines)-1], maxChars)
	}
	return strings.Join(lines[start:], "\n")
}

// Outcome describes what became of a question from its attempts, in the
// engine's words ("answered", "refused: no authorised evidence",
// "failed"), which llm.SummaryLine renders in the turn's language.
func Outcome(attempts []*ent.Attempt) string {
	answered, refused := false, false
	for _, a := range attempts {
		if a.Status == attempt.StatusCOMPLETED {
			if a.Refused {
				refused = true
			} else {
				answered = true
			}
		}
	}
	switch {
	case answered:
		return "answered"
	case refused:
		return "refused: no authorised evidence"
	default:
		return "failed"
	}
}

func capRunes(s string, n int) string {
	if n <= 0 || len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
