package history

import (
	"context"
	"log/slog"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
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

// roundScorer scores the candidate rounds of a PRIORITIZED window
// (oldest first) against questions: the rewrite's ranking of the older
// rounds against the follow-up (rankEarlier) and the prompt's choice
// against the standalone question (prioritize) use the same score. The
// rounds are embedded once, with the first question scored; a later
// question costs one more embedding of that question only. If embedding
// fails, similarity counts as zero and the other parts still rank.
type roundScorer struct {
	model  llm.Model
	log    *slog.Logger
	rounds []prompt.Round
	cited  map[int64]bool
	// vecs are the rounds' embeddings once embedded (nil after a failure);
	// questions are the questions' embeddings, by question.
	embedded  bool
	vecs      [][]float32
	questions map[string][]float32
}

// newRoundScorer returns the scorer of w's candidate rounds, or nil when
// w's strategy is not PRIORITIZED.
func (a *Assembler) newRoundScorer(w window) *roundScorer {
	if w.plan.strategy != domain.StrategyPrioritized {
		return nil
	}
	return &roundScorer{model: a.Model, log: a.Log, rounds: w.rounds, cited: w.cited, questions: map[string][]float32{}}
}

// embed returns question's embedding, embedding the rounds with it the
// first time; nil when embedding failed (once the rounds' embedding has
// failed, no question is embedded: it would have nothing to compare to).
func (s *roundScorer) embed(ctx context.Context, question string) []float32 {
	if v, ok := s.questions[question]; ok {
		return v
	}
	if s.embedded && s.vecs == nil {
		return nil
	}
	texts := []string{question}
	if !s.embedded {
		for _, r := range s.rounds {
			texts = append(texts, roundText(r))
		}
	}
	vecs, err := s.model.Embed(ctx, texts)
	if err != nil || len(vecs) != len(texts) {
		s.log.WarnContext(ctx, "round embeddings unavailable; scoring without similarity", "err", err)
		vecs = nil
	}
	if !s.embedded {
		s.embedded = true
		if vecs != nil {
			s.vecs = vecs[1:]
		}
	}
	var q []float32
	if vecs != nil {
		q = vecs[0]
	}
	s.questions[question] = q
	return q
}

// scores returns every round's score against question, oldest first
// (docs/ENGINE.md, "History strategies": 0.6 × similarity + 0.3 × shared
// terms + 0.1 × cited).
func (s *roundScorer) scores(ctx context.Context, question string) []domain.RoundScore {
	n := len(s.rounds)
	if n == 0 {
		return nil
	}
	q := s.embed(ctx, question)
	qTerms := terms(question)
	scores := make([]domain.RoundScore, n)
	for i, r := range s.rounds {
		sc := domain.RoundScore{UserSeq: r.UserSeq, Cited: s.cited[r.UserSeq], Previous: i == n-1}
		if q != nil && s.vecs != nil {
			sc.Similarity = round3(math.Max(0, llm.Cosine(q, s.vecs[i])))
		}
		sc.SharedTerms = sharedTerms(qTerms, terms(r.User+"\n"+r.Assistant))
		score := weightSimilarity*sc.Similarity + weightShared*float64(min(sc.SharedTerms, sharedSaturation))/sharedSaturation
		if sc.Cited {
			score += weightCited
		}
		sc.Score = round3(score)
		scores[i] = sc
	}
	return scores
}

// rankEarlier returns the rounds older than the newest recent ones, the
// best first by their score against the follow-up question (the newer
// among equals), at most limit: the older rounds the rewrite chooses the
// follow-up's referent among, with the newest ones and the summary. No
// score bounds them: the rewrite chooses by what the follow-up mentions
// (a follow-up is short, and its referent may share little of its
// embedding), and a round it resolves to is then scored against the
// standalone question that names it.
func (s *roundScorer) rankEarlier(ctx context.Context, question string, recent, limit int) []prompt.Round {
	if s == nil || limit <= 0 || len(s.rounds) <= recent {
		return nil
	}
	older := len(s.rounds) - recent
	scores := s.scores(ctx, question)
	order := make([]int, 0, older)
	for i := older - 1; i >= 0; i-- {
		order = append(order, i)
	}
	sort.SliceStable(order, func(x, y int) bool { return scores[order[x]].Score > scores[order[y]].Score })
	var out []prompt.Round
	for _, i := range order {
		if len(out) == limit {
			break
		}
		out = append(out, s.rounds[i])
	}
	return out
}

// prioritize scores the candidate rounds against the standalone question
// and returns the rounds to offer the prompt, oldest first, each with its
// score as its priority, and every candidate's score for the manifest
// (newest first). The previous round is always chosen; the others by
// score (the newer among equals), at most limit in all, none below
// minRoundScore.
func (s *roundScorer) prioritize(ctx context.Context, standalone string, limit int) ([]prompt.Round, []domain.RoundScore) {
	n := len(s.rounds)
	if n == 0 || limit <= 0 {
		return nil, nil
	}
	scores := s.scores(ctx, standalone)
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
	for i, r := range s.rounds {
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
	for i, sc := range scores {
		newestFirst[n-1-i] = sc
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
