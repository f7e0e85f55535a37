package chunker

import "github.com/ragchat/ragchat/internal/domain"

// Defaults of Options.
const (
	// DefaultMaxTokens is the chunk size used when Options.MaxTokens is 0.
	DefaultMaxTokens = 400
	// DefaultOverlapTokens is the overlap used when Options.OverlapTokens is
	// 0, capped at a quarter of MaxTokens so that a small MaxTokens alone is
	// still a valid configuration.
	DefaultOverlapTokens = 60
	// NoOverlap, as Options.OverlapTokens, turns overlap off.
	NoOverlap = -1
)

// Counter counts the tokens of a text. The counters of internal/tokens
// satisfy it. Implementations must be deterministic.
type Counter interface {
	// Count returns the number of tokens in s.
	Count(s string) int
}

// Options configures Split.
type Options struct {
	// MaxTokens is the largest token count of a chunk, heading line
	// included. 0 means DefaultMaxTokens.
	MaxTokens int
	// OverlapTokens bounds the whole sentences a chunk repeats from the end
	// of the previous chunk of the same section. 0 means
	// DefaultOverlapTokens (at most MaxTokens/4); NoOverlap turns it off.
	OverlapTokens int
	// Counter counts tokens. It is required.
	Counter Counter
}

// resolve applies the defaults and validates o.
func (o Options) resolve() (Options, error) {
	if o.Counter == nil {
		return o, domain.Errorf(domain.CodeBadUserInput, "chunker: a token counter is required")
	}
	switch {
	case o.MaxTokens < 0:
		return o, domain.Errorf(domain.CodeBadUserInput, "chunker: max tokens must not be negative, got %d", o.MaxTokens)
	case o.MaxTokens == 0:
		o.MaxTokens = DefaultMaxTokens
	}
	switch {
	case o.OverlapTokens == NoOverlap:
		o.OverlapTokens = 0
	case o.OverlapTokens < 0:
		return o, domain.Errorf(domain.CodeBadUserInput, "chunker: overlap tokens must not be negative (use NoOverlap), got %d", o.OverlapTokens)
	case o.OverlapTokens == 0:
		o.OverlapTokens = min(DefaultOverlapTokens, o.MaxTokens/4)
	}
	if o.MaxTokens <= o.OverlapTokens {
		return o, domain.Errorf(domain.CodeBadUserInput, "chunker: max tokens (%d) must exceed overlap tokens (%d)", o.MaxTokens, o.OverlapTokens)
	}
	return o, nil
}
