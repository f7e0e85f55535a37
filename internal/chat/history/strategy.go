package history

import (
	"fmt"

	"github.com/ragchat/ragchat/internal/domain"
)

// ParseStrategy validates a conversation's requested history strategy:
// nil (or "") inherits the tenant's; anything else must be one of
// domain.HistoryStrategies, or it is BAD_USER_INPUT naming the field
// historyStrategy.
func ParseStrategy(s *string) (*domain.HistoryStrategy, error) {
	if s == nil || *s == "" {
		return nil, nil
	}
	h := domain.HistoryStrategy(*s)
	if !h.Valid() {
		return nil, domain.Errorf(domain.CodeBadUserInput, "unknown history strategy %q (want one of %v, or null for the tenant's)",
			truncateForMessage(*s), domain.HistoryStrategies).With("field", "historyStrategy")
	}
	return &h, nil
}

// SameStrategy reports whether a conversation's stored strategy equals s.
func SameStrategy(stored, s *domain.HistoryStrategy) bool {
	if stored == nil || s == nil {
		return stored == nil && s == nil
	}
	return *stored == *s
}

// truncateForMessage shortens client input echoed in an error message.
func truncateForMessage(s string) string {
	if r := []rune(s); len(r) > 40 {
		return fmt.Sprintf("%s…", string(r[:40]))
	}
	return s
}

// windowPlan says what loadWindow reads for one strategy and what of it
// reaches the answer prompt.
type windowPlan struct {
	strategy domain.HistoryStrategy
	// afterSummary: read only the rounds after the summary's coverage
	// (HYBRID, SEMANTIC_SUMMARY); otherwise the newest rounds whatever the
	// summary covers (SLIDING_WINDOW, PRIORITIZED).
	afterSummary bool
	// summary: the prompt carries the rolling summary.
	summary bool
	// read is how many whole rounds are read at most.
	read int
	// verbatim is how many of the newest rounds reach the prompt as they
	// are (PRIORITIZED: how many it may choose). The rounds read beyond
	// them and after the summary's coverage are not summarised yet; HYBRID
	// and SEMANTIC_SUMMARY add them to the summary as one line each.
	verbatim int
}

// planFor returns the window plan of strategy s under st.
//
//   - SLIDING_WINDOW: the newest HistoryRounds rounds, no summary.
//   - SEMANTIC_SUMMARY: the summary only; the rounds the summariser has not
//     folded yet (at most HistoryRounds + SummaryTriggerRounds + 2) join it
//     as summary lines, never verbatim.
//   - HYBRID: the newest HistoryRounds rounds verbatim, the summary of
//     everything older, and the not yet folded rounds in between as
//     summary lines.
//   - PRIORITIZED: the newest PrioritizedCandidates rounds are scored, and
//     at most HistoryRounds of them reach the prompt, with the summary; the
//     others not folded yet join the summary as lines.
//
// The strategy also decides what the rewrite of a follow-up sees
// (rewriteRequest): the newest rounds read (at most HistoryRounds), and
// what it keeps of older rounds (the summary; PRIORITIZED's ranked
// candidates).
func planFor(s domain.HistoryStrategy, st domain.TenantSettings) windowPlan {
	pending := st.HistoryRounds + st.SummaryTriggerRounds + 2
	switch s {
	case domain.StrategySlidingWindow:
		return windowPlan{strategy: s, read: st.HistoryRounds, verbatim: st.HistoryRounds}
	case domain.StrategySemanticSummary:
		return windowPlan{strategy: s, afterSummary: true, summary: true, read: pending, verbatim: 0}
	case domain.StrategyPrioritized:
		return windowPlan{strategy: s, summary: true, read: max(st.PrioritizedCandidates, st.HistoryRounds), verbatim: st.HistoryRounds}
	default:
		return windowPlan{strategy: domain.StrategyHybrid, afterSummary: true, summary: true, read: pending, verbatim: st.HistoryRounds}
	}
}
