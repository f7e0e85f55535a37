package resolvers

import (
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
)

// notFound turns the storage errors of a row that does not exist or is
// hidden (store.ClassNotFound) into the canonical NOT_FOUND of kind; other
// errors pass through, to the error presenter, which classifies them with
// the same store.Classify.
func notFound(err error, kind string) error {
	if store.Classify(err) == store.ClassNotFound {
		return domain.NotFound(kind)
	}
	return err
}

// badInput returns a BAD_USER_INPUT error naming the offending field.
func badInput(field, format string, args ...any) *domain.Error {
	return domain.Errorf(domain.CodeBadUserInput, format, args...).With("field", field)
}

// orEmpty is *s, or "" when the optional argument s was left out.
func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
