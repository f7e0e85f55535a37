package chat

import (
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/defaults"
	"github.com/ragchat/ragchat/internal/domain"
)

// Limits bound client input and the ask rate. The engine is their single
// owner: the GraphQL layer passes input through unchecked, so one number
// decides (docs/API.md, Limits). Zero fields take DefaultLimits.
type Limits struct {
	// QuestionChars bounds a question, in characters (Unicode code points)
	// after surrounding white space is trimmed (RAGCHAT_MAX_QUESTION_CHARS).
	QuestionChars int
	// CommentChars bounds the reason given for deleting a conversation,
	// counted like a question (RAGCHAT_MAX_COMMENT_CHARS; a feedback
	// comment has the same bound, internal/feedback's Options).
	CommentChars int
	// AskRatePerMinute and AskBurst are the per-user rate of asks and
	// retries for tenants whose settings name none (RAGCHAT_ASK_RATE_PER_MINUTE,
	// RAGCHAT_ASK_BURST).
	AskRatePerMinute float64
	AskBurst         int
}

// Widths of stored values. They are the schema's column sizes, in bytes,
// and not configurable.
const (
	// MaxTitleBytes bounds a conversation title.
	MaxTitleBytes = 255
)

// DefaultLimits are the limits of a server that configures none.
func DefaultLimits() Limits {
	return Limits{
		QuestionChars:    4000,
		CommentChars:     domain.DefaultCommentChars,
		AskRatePerMinute: 30,
		AskBurst:         10,
	}
}

// withDefaults fills the zero fields of l from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	l.QuestionChars = defaults.Positive(l.QuestionChars, d.QuestionChars)
	l.CommentChars = defaults.Positive(l.CommentChars, d.CommentChars)
	l.AskRatePerMinute = defaults.Positive(l.AskRatePerMinute, d.AskRatePerMinute)
	l.AskBurst = defaults.Positive(l.AskBurst, d.AskBurst)
	return l
}

// badInput is a BAD_USER_INPUT error naming the input field.
var badInput = domain.BadInput

// overLimit is a BAD_USER_INPUT error for an input beyond a limit.
var overLimit = domain.OverLimit

// checkQuestion validates and trims a question.
func (e *Engine) checkQuestion(q string) (string, error) {
	return domain.TextRule{Field: "question", Limit: domain.LimitQuestionLength, Max: e.cfg.Limits.QuestionChars, Required: true}.Check(q)
}

// checkTitle validates and trims a user-chosen conversation title.
func checkTitle(t string) (string, error) {
	return domain.TextRule{Field: "title", Limit: domain.LimitTitleLength, Max: MaxTitleBytes, Bytes: true, Required: true}.Check(t)
}

// checkComment validates and trims an optional free text bounded like a
// feedback comment (field names it: "comment", "reason"). Blank text is
// returned as "", meaning none.
func (e *Engine) checkComment(field, c string) (string, error) {
	return domain.TextRule{Field: field, Limit: domain.LimitCommentLength, Max: e.cfg.Limits.CommentChars}.Check(c)
}

// capBytes cuts s to at most n bytes, at a character boundary.
func capBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
