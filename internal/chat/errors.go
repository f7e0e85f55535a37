package chat

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/domain"
)

// storageError maps an error from the database to a domain error: not
// found (including privacy filtering) to NOT_FOUND for kind, privacy
// denials to FORBIDDEN, lost connections to UNAVAILABLE, and everything else
// to INTERNAL with the cause kept for the log.
func storageError(err error, kind string) error {
	var de *domain.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &de):
		return err
	case ent.IsNotFound(err):
		return domain.NotFound(kind)
	case errors.Is(err, privacy.Deny):
		return domain.Wrap(err, domain.CodeForbidden, "not permitted")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return domain.Wrap(err, domain.CodeUnavailable, "request cancelled or timed out")
	case isTransient(err):
		return domain.Wrap(err, domain.CodeUnavailable, "the database is unavailable, try again")
	default:
		return domain.Wrap(err, domain.CodeInternal, "internal error")
	}
}

// rollback rolls tx back and returns err, so that the original error is
// what the caller sees.
func rollback(tx *ent.Tx, err error) error {
	_ = tx.Rollback()
	return err
}

// validateText checks a client-supplied text: non-empty after trimming,
// valid UTF-8, at most maxRunes runes, no NUL bytes.
func validateText(field, s string, maxRunes int) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", domain.Errorf(domain.CodeBadUserInput, "%s must not be empty", field)
	case !utf8.ValidString(s) || strings.ContainsRune(s, 0):
		return "", domain.Errorf(domain.CodeBadUserInput, "%s must be valid UTF-8 text", field)
	case utf8.RuneCountInString(s) > maxRunes:
		return "", domain.Errorf(domain.CodeBadUserInput, "%s is longer than %d characters", field, maxRunes)
	}
	return s, nil
}

// validateClientID checks an idempotency key.
func validateClientID(field, s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", domain.Errorf(domain.CodeBadUserInput, "%s is required (an idempotency key chosen by the client)", field)
	}
	if len(s) > MaxClientIDLength || !utf8.ValidString(s) {
		return "", domain.Errorf(domain.CodeBadUserInput, "%s must be at most %d bytes of UTF-8", field, MaxClientIDLength)
	}
	return s, nil
}
