package chat

import (
	"fmt"

	"github.com/ragchat/ragchat/internal/domain"
)

// parseHistoryStrategy validates a conversation's requested history
// strategy: nil (or "") inherits the tenant's; anything else must be one of
// domain.HistoryStrategies, or it is BAD_USER_INPUT naming the field
// historyStrategy.
func parseHistoryStrategy(s *string) (*domain.HistoryStrategy, error) {
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

// sameStrategy reports whether a conversation's stored strategy equals s.
func sameStrategy(stored, s *domain.HistoryStrategy) bool {
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
