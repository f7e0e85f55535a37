package offline

import (
	"sort"
	"strings"

	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/internal/text"
	"github.com/ragchat/ragchat/internal/promptfmt"
)

// Answers given without evidence. The engine normally refuses before it
// calls the model, so these are a safety net.
const (
	noEvidenceZH = "抱歉，知识库中没有找到可以回答这个问题的资料。"
	noEvidenceEN = "Sorry, I cannot answer this from the knowledge base: no relevant documents were found."
)

// Sentence selection: after the best sentence, others must score at least
// minRelativeScore of the best and at least minScore.
const (
	minRelativeScore = 0.4
	minScore         = 0.08
)

// candidate is one evidence sentence scored against the question.
type candidate struct {
	chunk, pos int
	label      string
	sentence   string
	score      float64
}

// composeAnswer builds the extractive answer to the last user message of
// msgs: the evidence sentences closest to the question, each followed by
// its chunk's citation label, in the question's language.
func composeAnswer(msgs []llm.Message, maxSentences int) string {
	prompt := lastUserMessage(msgs)
	question, ok := promptfmt.SectionBody(prompt, promptfmt.UserInputSection)
	if !ok && !strings.Contains(prompt, promptfmt.Open(promptfmt.KnowledgeSection)) {
		question = strings.TrimSpace(prompt)
	}
	evidence := promptfmt.ParseEvidence(prompt)
	zh := text.HasHan(question)
	if question == "" {
		for _, e := range evidence {
			zh = zh || text.HasHan(e.Content)
		}
	}
	if len(evidence) == 0 {
		if zh {
			return noEvidenceZH
		}
		return noEvidenceEN
	}
	chosen := pickSentences(question, evidence, maxSentences)
	var b strings.Builder
	if zh {
		b.WriteString("根据资料：")
	} else {
		b.WriteString("According to the documentation: ")
	}
	for i, c := range chosen {
		body, end := splitTerminator(c.sentence, zh)
		if !zh && i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(body)
		b.WriteString(" [" + c.label + "]")
		b.WriteString(end)
	}
	return b.String()
}

func lastUserMessage(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}

// pickSentences scores every evidence sentence against the question and
// returns the best (at most limit, at most two per chunk, see
// minRelativeScore) in document order. Earlier chunks, which retrieval
// ranked higher, get a small bonus, so the first sentence of C1 answers
// when nothing overlaps.
func pickSentences(question string, evidence []promptfmt.Evidence, limit int) []candidate {
	q := sparseHash(features(question))
	var all []candidate
	for ci, e := range evidence {
		bonus := 0.03 * float64(len(evidence)-ci) / float64(len(evidence))
		for si, s := range splitSentences(withoutHeadingLine(e.Content, e.Title)) {
			if len([]rune(text.TrimQuestion(s))) < 2 {
				continue
			}
			all = append(all, candidate{chunk: ci, pos: si, label: e.Label, sentence: s, score: dotSparse(q, sentenceVector(s)) + bonus})
		}
	}
	if len(all) == 0 {
		return []candidate{{label: evidence[0].Label, sentence: strings.TrimSpace(evidence[0].Title)}}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	best := all[0].score
	var chosen []candidate
	seen := map[string]bool{}
	perChunk := map[int]int{}
	for _, c := range all {
		if len(chosen) == limit {
			break
		}
		if len(chosen) > 0 && (c.score < best*minRelativeScore || c.score < minScore) {
			break
		}
		if seen[c.sentence] || perChunk[c.chunk] == 2 {
			continue
		}
		seen[c.sentence] = true
		perChunk[c.chunk]++
		chosen = append(chosen, c)
	}
	sort.SliceStable(chosen, func(i, j int) bool {
		if chosen[i].chunk != chosen[j].chunk {
			return chosen[i].chunk < chosen[j].chunk
		}
		return chosen[i].pos < chosen[j].pos
	})
	return chosen
}

// splitTerminator separates a sentence from its final punctuation, so the
// citation can go before it ("… ERR_FILE_TOO_LARGE [C1]。"). A sentence
// without one gets "。" or ".".
func splitTerminator(s string, zh bool) (body, end string) {
	rs := []rune(strings.TrimSpace(s))
	i := len(rs)
	for i > 0 && strings.ContainsRune("。！？；.!?;，,：:", rs[i-1]) {
		i--
	}
	body, end = string(rs[:i]), string(rs[i:])
	switch {
	case end == "" || strings.ContainsAny(end, "，,：:；;"):
		if zh {
			end = "。"
		} else {
			end = "."
		}
	case zh && end == ".":
		end = "。"
	}
	return body, end
}

// withoutHeadingLine drops a chunk's first line when it is the heading path
// the chunker prefixes ("文件上传限制 > 超过限制时的错误码"): context for
// retrieval, not an answer sentence.
func withoutHeadingLine(content, title string) string {
	first, rest, ok := strings.Cut(strings.TrimSpace(content), "\n")
	if !ok || strings.ContainsAny(first, "。！？.!?；;") {
		return content
	}
	if strings.Contains(first, " > ") || strings.HasPrefix(first, strings.TrimSpace(title)) {
		return rest
	}
	return content
}
