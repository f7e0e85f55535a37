package chat

import (
	"context"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/prompt"
)

// Weights of a PRIORITIZED round's score (docs/ENGINE.md, "History
// strategies"): similarity to the standalone question, shared entities and
// numbers, and whether the round's answer cited evidence.
const (
	weightSimilarity = 0.6
	weightShared     = 0.3
	weightCited      = 0.1
	// sharedSaturation is the number of shared terms that earns the whole
	// shared weight.
	sharedSaturation = 3
	// minRoundScore is the score below which a round is not chosen (the
	// previous round always is): an unrelated round is noise, not context.
	minRoundScore = 0.15
	// roundTextRunes bounds the answer text embedded with a round.
	roundTextRunes = 300
)

// previousPriority is the priority of the immediately previous round: it
// is cut last, since follow-ups refer to it.
const previousPriority = math.MaxFloat64

// prioritize scores the candidate rounds of w (oldest first) against the
// standalone question and returns the rounds to offer the prompt, oldest
// first, each with its score as its priority, and every candidate's score
// for the manifest (newest first). The previous round is always chosen;
// the others by score (the newer among equals), at most limit in all, none
// below minRoundScore. One embedding call covers the question and every
// candidate. If embedding fails, similarity counts as zero and the other
// parts still rank the rounds.
func (e *Engine) prioritize(ctx context.Context, w window, standalone string, limit int) ([]prompt.Round, []domain.RoundScore) {
	n := len(w.rounds)
	if n == 0 || limit <= 0 {
		return nil, nil
	}
	texts := make([]string, 0, n+1)
	texts = append(texts, standalone)
	for _, r := range w.rounds {
		texts = append(texts, roundText(r))
	}
	vecs, err := e.model.Embed(ctx, texts)
	if err != nil || len(vecs) != len(texts) {
		e.log.WarnContext(ctx, "round embeddings unavailable; scoring without similarity", "err", err)
		vecs = nil
	}
	qTerms := terms(standalone)
	scores := make([]domain.RoundScore, n) // oldest first here
	for i, r := range w.rounds {
		s := domain.RoundScore{UserSeq: r.UserSeq, Cited: w.cited[r.UserSeq], Previous: i == n-1}
		if vecs != nil {
			s.Similarity = round3(math.Max(0, cosine(vecs[0], vecs[i+1])))
		}
		s.SharedTerms = sharedTerms(qTerms, terms(r.User+"\n"+r.Assistant))
		score := weightSimilarity*s.Similarity + weightShared*float64(min(s.SharedTerms, sharedSaturation))/sharedSaturation
		if s.Cited {
			score += weightCited
		}
		s.Score = round3(score)
		scores[i] = s
	}
	// The previous round, then the best of the others.
	order := make([]int, 0, n-1)
	for i := n - 2; i >= 0; i-- {
		order = append(order, i)
	}
	sort.SliceStable(order, func(x, y int) bool { return scores[order[x]].Score > scores[order[y]].Score })
	scores[n-1].Chosen = true
	chosen := 1
	for _, i := range order {
		if chosen == limit || scores[i].Score < minRoundScore {
			break
		}
		scores[i].Chosen = true
		chosen++
	}
	rounds := make([]prompt.Round, 0, chosen)
	for i, r := range w.rounds {
		if !scores[i].Chosen {
			continue
		}
		r.Priority = scores[i].Score
		if scores[i].Previous {
			r.Priority = previousPriority
		}
		rounds = append(rounds, r)
	}
	newestFirst := make([]domain.RoundScore, n)
	for i, s := range scores {
		newestFirst[n-1-i] = s
	}
	return rounds, newestFirst
}

// roundText is what a round is embedded as: its question and the start of
// its answer.
func roundText(r prompt.Round) string {
	a := strings.TrimSpace(r.Assistant)
	if utf8.RuneCountInString(a) > roundTextRunes {
		a = string([]rune(a)[:roundTextRunes])
	}
	return strings.TrimSpace(r.User) + "\n" + a
}

// cosine returns the cosine similarity of a and b.
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// terms returns the entities and numbers of s, lower-cased: every run of
// letters, digits and _ - . that holds a digit, an underscore or a capital
// letter after its first character, or is all capitals of two or more
// (error codes, amounts, ids, product names such as "ERR_FILE_TOO_LARGE",
// "20MB", "HNSW", "INV-2041", "pgvector0.8"); and every number, also inside
// Chinese text ("20MB" in "最大为20MB").
func terms(s string) map[string]bool {
	out := map[string]bool{}
	isPart := func(r rune) bool {
		return r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.')
	}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !isPart(r) }) {
		f = strings.Trim(f, "-._")
		if f == "" {
			continue
		}
		if isEntity(f) {
			out[strings.ToLower(f)] = true
		}
	}
	return out
}

// isEntity reports whether an ASCII word looks like an entity or a number.
func isEntity(w string) bool {
	digits, upper, under := 0, 0, false
	for i, r := range w {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '_':
			under = true
		case r >= 'A' && r <= 'Z' && i > 0:
			upper++
		}
	}
	allCaps := len(w) >= 2 && strings.ToUpper(w) == w && strings.ToLower(w) != w
	return digits > 0 || under || upper > 0 || allCaps
}

// sharedTerms counts the terms of q that also occur in r.
func sharedTerms(q, r map[string]bool) int {
	n := 0
	for t := range q {
		if r[t] {
			n++
		}
	}
	return n
}

// notChosen returns the rounds of rs (newest first) that scores did not
// choose, newest first.
func notChosen(rs []pairedRound, scores []domain.RoundScore) []pairedRound {
	chosen := make(map[int64]bool, len(scores))
	for _, s := range scores {
		if s.Chosen {
			chosen[s.UserSeq] = true
		}
	}
	var out []pairedRound
	for _, r := range rs {
		if !chosen[r.UserSeq] {
			out = append(out, r)
		}
	}
	return out
}
