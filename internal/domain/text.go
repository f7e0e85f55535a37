package domain

import (
	"strings"
	"unicode/utf8"
)

// The names of the limits in an error's extensions.limit (docs/API.md,
// Limits).
const (
	LimitQuestionLength = "questionLength"
	LimitCommentLength  = "commentLength"
	LimitTitleLength    = "titleLength"
	LimitClientIDLength = "clientIdLength"
	LimitReasonCodes    = "reasonCodes"
	LimitAskRate        = "askRate"
)

// DefaultCommentChars bounds the free texts bounded like a feedback
// comment (a comment, the reason for a deletion or a support request) when
// a server configures no bound.
const DefaultCommentChars = 2000

// BadInput is a BAD_USER_INPUT error naming the input field.
func BadInput(field, format string, args ...any) *Error {
	return Errorf(CodeBadUserInput, format, args...).With("field", field)
}

// OverLimit is a BAD_USER_INPUT error for an input beyond a limit: it
// names the field, the limit and the limit's value.
func OverLimit(field, limit string, max int, format string, args ...any) *Error {
	return BadInput(field, format, args...).With("limit", limit).With("max", max)
}

// TextRule is how one kind of client text is checked: Field names it in
// errors, Limit names its bound and Max is the bound, in characters
// (Unicode code points) or, with Bytes, in bytes (a column width).
// Required refuses empty text instead of reading it as "absent".
type TextRule struct {
	Field, Limit string
	Max          int
	Bytes        bool
	Required     bool
}

// Check trims surrounding white space from s and checks it: valid UTF-8
// without NUL characters (which PostgreSQL cannot store) and within the
// limit. An empty result is refused when the text is required and returned
// as "" otherwise. Every text limit is counted after trimming, so that the
// same input is accepted or refused however it is padded.
func (r TextRule) Check(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" && r.Required:
		return "", BadInput(r.Field, "%s must not be empty", r.Field)
	case !utf8.ValidString(s) || strings.ContainsRune(s, 0):
		return "", BadInput(r.Field, "%s must be valid UTF-8 text without NUL characters", r.Field)
	case r.Bytes && len(s) > r.Max:
		return "", OverLimit(r.Field, r.Limit, r.Max, "%s is longer than %d bytes of UTF-8", r.Field, r.Max)
	case !r.Bytes && utf8.RuneCountInString(s) > r.Max:
		return "", OverLimit(r.Field, r.Limit, r.Max, "%s is longer than %d characters", r.Field, r.Max)
	}
	return s, nil
}

// MaxClientIDBytes bounds an idempotency key (clientMessageId,
// clientRequestId): the schema's column size, in bytes.
const MaxClientIDBytes = 128

// CheckClientID validates and trims an idempotency key chosen by the
// client (field names it): required, valid text, at most
// MaxClientIDBytes bytes (limit LimitClientIDLength).
func CheckClientID(field, key string) (string, error) {
	return TextRule{Field: field, Limit: LimitClientIDLength, Max: MaxClientIDBytes, Bytes: true, Required: true}.Check(key)
}
