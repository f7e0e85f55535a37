package chat

import (
	"context"
	"errors"

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
