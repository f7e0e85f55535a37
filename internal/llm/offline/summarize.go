package offline

import (
	"context"
	"strings"

	"github.com/ragchat/ragchat/internal/llm"
)

// Summarize appends the lines of Parts and one line per item
// (llm.SummaryLine: "用户陈述：…；用户问：…；助手回答结果：已回答", or "User
// stated: …; User asked: …; Assistant outcome: answered") to the previous
// summary, and drops the oldest lines until the result has at most MaxChars
// runes. It records the user's words and outcomes only; it never sees
// assistant answer text.
func (m *Model) Summarize(ctx context.Context, req llm.SummarizeRequest) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", llm.ContextError(err)
	}
	limit := req.MaxChars
	if limit <= 0 {
		limit = llm.DefaultSummaryMaxChars
	}
	var lines []string
	for _, block := range append([]string{req.Previous}, req.Parts...) {
		for _, l := range strings.Split(block, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
	}
	for _, it := range req.Items {
		if l := llm.SummaryLine(it); l != "" {
			lines = append(lines, l)
		}
	}
	return capLines(lines, limit), nil
}

// capLines joins lines with newlines, dropping the oldest until the text
// has at most limit runes; a single remaining line is cut.
func capLines(lines []string, limit int) string {
	total := -1
	for _, l := range lines {
		total += len([]rune(l)) + 1
	}
	for len(lines) > 1 && total > limit {
		total -= len([]rune(lines[0])) + 1
		lines = lines[1:]
	}
	out := strings.Join(lines, "\n")
	if r := []rune(out); len(r) > limit {
		out = string(r[:limit])
	}
	return out
}
