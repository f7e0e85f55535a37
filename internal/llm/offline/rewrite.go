package offline

import (
	"context"
	"strings"

	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/internal/text"
)

// Rewrite turns a follow-up into a standalone question with rules. A
// question that passes the llm.NeedsHistory gate as standalone is returned
// unchanged, so a topic switch is never polluted. Otherwise the topic of
// the question it refers to (referent: the latest history question,
// itself resolved against the rounds before it, unless the follow-up's
// subject is only in an older round or in the summary) is carried into
// the follow-up:
//
//   - "那X呢？" / "What about X?" puts X into the previous question's frame
//     (退款多久到账 + 那银行卡呢 → 银行卡退款多久到账？);
//   - pronouns (它, 这个…, it, its, this …) are replaced by the topic
//     (什么是RAG？ + 那它有什么缺点？ → RAG有什么缺点？);
//   - anything else is prefixed with the topic
//     (上传文件最大是多少？ + 那超过以后返回什么错误码？ →
//     关于上传文件最大：超过以后返回什么错误码？).
func (m *Model) Rewrite(ctx context.Context, req llm.RewriteRequest) (llm.RewriteResult, error) {
	if err := ctx.Err(); err != nil {
		return llm.RewriteResult{}, llm.ContextError(err)
	}
	q := strings.TrimSpace(req.Question)
	res := llm.RewriteResult{StandaloneQuestion: q, Usage: llm.Usage{Estimated: true}}
	if !llm.NeedsHistory(q, req.HasHistory()) {
		return res, nil
	}
	res.RequiresHistory = true
	if prev := referent(req, q); prev != "" {
		res.StandaloneQuestion = combine(prev, q)
	}
	return res, nil
}

// resolveHistory returns the standalone form of the latest user question of
// rounds, resolving each follow-up against the questions before it.
func resolveHistory(rounds []llm.Round) string {
	cur := ""
	for _, r := range rounds {
		u := strings.TrimSpace(r.User)
		switch {
		case u == "":
		case cur != "" && llm.NeedsHistory(u, true):
			cur = combine(cur, u)
		default:
			cur = u
		}
	}
	return cur
}

// combine merges the previous standalone question prev into follow-up q.
func combine(prev, q string) string {
	if text.HasHan(q) {
		return combineZH(prev, q)
	}
	return combineEN(prev, q)
}

// zhLeadingRefs are stripped from the start of a Chinese follow-up.
var zhLeadingRefs = []string{"那么", "那", "所以", "还有", "另外", "然后"}

// zhConditional start a "what if" follow-up (如果节假日呢).
var zhConditional = []string{"如果是", "如果", "要是", "假如", "假设"}

func stripPrefixes(s string, prefixes []string) (string, string) {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return strings.TrimSpace(strings.TrimPrefix(s, p)), p
		}
	}
	return s, ""
}

func combineZH(prev, q string) string {
	frame := text.TrimQuestion(prev)
	body, _ := stripPrefixes(text.TrimQuestion(q), zhLeadingRefs)
	body = strings.TrimLeft(body, "，,、 ")

	// "那X呢" / "如果X呢": put X into the previous question's frame.
	if x, ok := strings.CutSuffix(body, "呢"); ok {
		x, cond := stripPrefixes(strings.TrimSpace(x), zhConditional)
		if x = strings.TrimSpace(x); isPlainTopic(x) {
			if cond != "" {
				return "如果" + x + "，" + frame + "？"
			}
			return substituteZH(frame, x) + "？"
		}
	}

	topic := topicZH(prev)
	if topic == "" {
		topic = frame
	}
	if out, ok := replaceZHPronouns(body, topic); ok {
		return out + "？"
	}
	return "关于" + topic + "：" + body + "？"
}

// isPlainTopic reports whether x names a thing: short, with no question
// word, reference or ordinal in it.
func isPlainTopic(x string) bool {
	if x == "" || text.CountHan(x) > 8 || strings.ContainsAny(x, "这它第") || strings.Contains(x, "那") {
		return false
	}
	return strings.TrimSpace(text.RemoveZHQuestionWords(x)) == x
}

// substituteZH puts x into frame: in place of the first Latin word when x
// is a Latin name (PostgreSQL → MySQL), in place of a same-length Chinese
// phrase ending in the same character (信用卡 → 银行卡), or else in front.
func substituteZH(frame, x string) string {
	if !text.HasHan(x) {
		if w := text.Words(frame); len(w) > 0 {
			return strings.Replace(frame, w[0], x, 1)
		}
		return x + " " + frame
	}
	xr, fr := []rune(x), []rune(frame)
	last := xr[len(xr)-1]
	for i := len(xr) - 1; i < len(fr); i++ {
		if fr[i] != last {
			continue
		}
		win := fr[i-len(xr)+1 : i+1]
		if string(win) != x && allHan(win) && text.RemoveZHQuestionWords(string(win)) == string(win) {
			return string(fr[:i-len(xr)+1]) + x + string(fr[i+1:])
		}
	}
	return x + frame
}

func allHan(rs []rune) bool {
	for _, r := range rs {
		if !text.IsHan(r) {
			return false
		}
	}
	return true
}

// topicZH strips question words, particles and edge fillers from a
// question, leaving its topic (上传文件最大是多少？ → 上传文件最大).
func topicZH(q string) string {
	parts := strings.Fields(text.RemoveZHQuestionWords(text.TrimQuestion(q)))
	var b strings.Builder
	for i, p := range parts {
		if i > 0 && !text.HasHan(p) && !text.HasHan(parts[i-1]) {
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	return strings.Trim(b.String(), text.ZHFillers+"我你 ，,、")
}

// zhPronouns are replaced by the topic; a demonstrative before a noun
// becomes "<topic>的".
var (
	zhStandalone    = []string{"它们", "它"}
	zhDemonstrative = []string{"刚才提到的", "刚才说的", "上面提到的", "上面说的", "前面提到的", "之前提到的", "这个", "那个", "这些", "那些", "这种", "那种"}
)

func replaceZHPronouns(body, topic string) (string, bool) {
	for _, p := range zhStandalone {
		if strings.Contains(body, p) {
			return strings.Replace(body, p, topic, 1), true
		}
	}
	for _, p := range zhDemonstrative {
		i := strings.Index(body, p)
		if i < 0 {
			continue
		}
		rest := body[i+len(p):]
		if rest == "" || !text.IsHan([]rune(rest)[0]) {
			return body[:i] + topic + rest, true
		}
		return body[:i] + topic + "的" + rest, true
	}
	return "", false
}
