package chat

import (
	"strings"
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/domain"
)

// Limits bound client input and the ask rate. The engine is their single
// owner: the GraphQL layer passes input through unchecked, so one number
// decides (docs/API.md, Limits). Zero fields take DefaultLimits.
type Limits struct {
	// QuestionChars bounds a question, in characters (Unicode code points)
	// after surrounding white space is trimmed (RAGCHAT_MAX_QUESTION_CHARS).
	QuestionChars int
	// CommentChars bounds a feedback comment and the reason given for
	// deleting a conversation, counted like a question
	// (RAGCHAT_MAX_COMMENT_CHARS).
	CommentChars int
	// ReasonCodes bounds the reason codes of one feedback.
	ReasonCodes int
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
	// MaxClientIDBytes bounds an idempotency key (clientMessageId,
	// clientRequestId).
	MaxClientIDBytes = 128
)

// The names of the limits in an error's extensions.limit.
const (
	LimitQuestionLength = "questionLength"
	LimitCommentLength  = "commentLength"
	LimitTitleLength    = "titleLength"
	LimitClientIDLength = "clientIdLength"
	LimitReasonCodes    = "reasonCodes"
	LimitAskRate        = "askRate"
)

// DefaultLimits are the limits of a server that configures none.
func DefaultLimits() Limits {
	return Limits{
		QuestionChars:    4000,
		CommentChars:     2000,
		ReasonCodes:      8,
		AskRatePerMinute: 30,
		AskBurst:         10,
	}
}

// withDefaults fills the zero fields of l from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.QuestionChars <= 0 {
		l.QuestionChars = d.QuestionChars
	}
	if l.CommentChars <= 0 {
		l.CommentChars = d.CommentChars
	}
	if l.ReasonCodes <= 0 {
		l.ReasonCodes = d.ReasonCodes
	}
	if l.AskRatePerMinute <= 0 {
		l.AskRatePerMinute = d.AskRatePerMinute
	}
	if l.AskBurst <= 0 {
		l.AskBurst = d.AskBurst
	}
	return l
}

// badInput is a BAD_USER_INPUT error naming the input field.
func badInput(field, format string, args ...any) *domain.Error {
	return domain.Errorf(domain.CodeBadUserInput, format, args...).With("field", field)
}

// overLimit is a BAD_USER_INPUT error for an input beyond a limit: it names
// the field, the limit and the limit's value.
func overLimit(field, limit string, max int, format string, args ...any) *domain.Error {
	return badInput(field, format, args...).With("limit", limit).With("max", max)
}

// textRule is how one kind of client text is checked.
type textRule struct {
	field, limit string
	max          int
	bytes        bool // max counts bytes (a column width), not characters
	required     bool // empty (after trimming) is refused, not "absent"
}

// check trims surrounding white space from s and checks it: valid UTF-8
// without NUL characters (which PostgreSQL cannot store) and within the
// limit. An empty result is refused when the text is required and returned
// as "" otherwise. Every text limit is counted after trimming, so that the
// same input is accepted or refused however it is padded.
func (r textRule) check(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" && r.required:
		return "", badInput(r.field, "%s must not be empty", r.field)
	case !utf8.ValidString(s) || strings.ContainsRune(s, 0):
		return "", badInput(r.field, "%s must be valid UTF-8 text without NUL characters", r.field)
	case r.bytes && len(s) > r.max:
		return "", overLimit(r.field, r.limit, r.max, "%s is longer than %d bytes of UTF-8", r.field, r.max)
	case !r.bytes && utf8.RuneCountInString(s) > r.max:
		return "", overLimit(r.field, r.limit, r.max, "%s is longer than %d characters", r.field, r.max)
	}
	return s, nil
}

// checkQuestion validates and trims a question.
func (e *Engine) checkQuestion(q string) (string, error) {
	return textRule{field: "question", limit: LimitQuestionLength, max: e.cfg.Limits.QuestionChars, required: true}.check(q)
}

// checkTitle validates and trims a user-chosen conversation title.
func (e *Engine) checkTitle(t string) (string, error) {
	return textRule{field: "title", limit: LimitTitleLength, max: MaxTitleBytes, bytes: true, required: true}.check(t)
}

// checkComment validates and trims an optional free text bounded like a
// feedback comment (field names it: "comment", "reason"). Blank text is
// returned as "", meaning none.
func (e *Engine) checkComment(field, c string) (string, error) {
	return textRule{field: field, limit: LimitCommentLength, max: e.cfg.Limits.CommentChars}.check(c)
}

// checkClientID validates and trims an idempotency key chosen by the
// client (field names it).
func checkClientID(field, key string) (string, error) {
	return textRule{field: field, limit: LimitClientIDLength, max: MaxClientIDBytes, bytes: true, required: true}.check(key)
}

// checkReasons validates feedback reason codes and returns them without
// duplicates, in the order given.
func (e *Engine) checkReasons(in []domain.FeedbackReason) ([]domain.FeedbackReason, error) {
	if n := e.cfg.Limits.ReasonCodes; len(in) > n {
		return nil, overLimit("reasons", LimitReasonCodes, n, "at most %d reason codes", n)
	}
	out := make([]domain.FeedbackReason, 0, len(in))
	seen := make(map[domain.FeedbackReason]bool, len(in))
	for _, r := range in {
		if !r.Valid() {
			return nil, badInput("reasons", "unknown reason code %q", r)
		}
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out, nil
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
