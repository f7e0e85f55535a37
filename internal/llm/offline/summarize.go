package offline

import (
	"context"
	"strings"

	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/internal/text"
)

// maxSummaryQuestionRunes caps one question inside a summary line.
const maxSummaryQuestionRunes = 80

// Summarize appends one line per item to the previous summary —
// "用户问：X；结果：已回答" for Chinese questions, "User asked: X; outcome:
// answered" for others — and drops the oldest lines until the result has at
// most MaxChars runes. It records intents and outcomes only; it never sees
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
	for _, l := range strings.Split(req.Previous, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	for _, it := range req.Items {
		if l := summaryLine(it); l != "" {
			lines = append(lines, l)
		}
	}
	return capLines(lines, limit), nil
}

// summaryLine renders one summary item.
func summaryLine(it llm.SummaryItem) string {
	q := strings.Join(strings.Fields(it.Question), " ")
	if q == "" {
		return ""
	}
	if r := []rune(q); len(r) > maxSummaryQuestionRunes {
		q = string(r[:maxSummaryQuestionRunes-1]) + "…"
	}
	outcome := strings.TrimSpace(it.Outcome)
	if text.HasHan(q) {
		return "用户问：" + q + "；结果：" + outcomeZH(outcome)
	}
	if outcome == "" {
		outcome = "unknown"
	}
	return "User asked: " + q + "; outcome: " + outcome
}

// outcomeZH translates the engine's outcome strings.
func outcomeZH(o string) string {
	head, reason, _ := strings.Cut(strings.ToLower(o), ":")
	reason = strings.TrimSpace(reason)
	switch strings.TrimSpace(head) {
	case "answered":
		return "已回答"
	case "refused":
		switch reason {
		case "":
			return "已拒答"
		case "no evidence", "no authorized evidence", "no_authorized_evidence":
			return "已拒答（知识库无可用资料）"
		default:
			return "已拒答（" + reason + "）"
		}
	case "failed":
		return "失败"
	case "cancelled", "canceled":
		return "已取消"
	case "":
		return "未知"
	default:
		return o
	}
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
