package resolvers

import (
	"errors"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
)

// notFound turns "no such row" errors into the canonical NOT_FOUND of kind;
// other errors pass through.
func notFound(err error, kind string) error {
	if err == nil {
		return nil
	}
	if ent.IsNotFound(err) || errors.Is(err, store.ErrUnknownNode) {
		return domain.NotFound(kind)
	}
	return err
}

// badInput returns a BAD_USER_INPUT error naming the offending field.
func badInput(field, format string, args ...any) *domain.Error {
	return domain.Errorf(domain.CodeBadUserInput, format, args...).With("field", field)
}
