package store

import (
	"context"
	"errors"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/domain"
)

// Class is what a storage error means to the layers above: the one
// classification of database errors that the engine, the knowledge
// service, the resolvers and the API's error presenter share.
type Class int

// The classes of Classify, in the order it tests them.
const (
	// ClassNone is a nil error.
	ClassNone Class = iota
	// ClassDomain is an error that already carries a domain code
	// (*domain.Error): it is kept as it is.
	ClassDomain
	// ClassNotFound is a row that does not exist or that the privacy rules
	// hide (ent's not-found error, ErrUnknownNode): the two are one class,
	// so a hidden row answers exactly like a missing one.
	ClassNotFound
	// ClassDenied is a write or read a privacy rule refused.
	ClassDenied
	// ClassCancelled is a request whose context was cancelled or whose
	// deadline passed.
	ClassCancelled
	// ClassTransient is a database that is unavailable for now, or a
	// statement that lost a race it can win next time (IsTransient).
	ClassTransient
	// ClassInvalid is a value an Ent validator refused.
	ClassInvalid
	// ClassConflict is a write a database constraint refused: another
	// change got there first.
	ClassConflict
	// ClassInternal is any other error: a bug.
	ClassInternal
)

// Classify returns the class of err.
func Classify(err error) Class {
	var de *domain.Error
	switch {
	case err == nil:
		return ClassNone
	case errors.As(err, &de):
		return ClassDomain
	case ent.IsNotFound(err), errors.Is(err, ErrUnknownNode):
		return ClassNotFound
	case errors.Is(err, privacy.Deny):
		return ClassDenied
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return ClassCancelled
	case IsTransient(err):
		return ClassTransient
	case ent.IsValidationError(err):
		return ClassInvalid
	case ent.IsConstraintError(err):
		return ClassConflict
	default:
		return ClassInternal
	}
}

// DomainError maps a storage error to the domain error of its class, with
// the codes of docs/API.md ("Errors"): NOT_FOUND for kind (the thing that
// was looked up, as in "conversation not found"), FORBIDDEN for a privacy
// denial, UNAVAILABLE for a cancelled or timed-out request and for a
// database that is unavailable (the client may retry), BAD_USER_INPUT for
// a refused value, CONFLICT for a constraint violation, and INTERNAL for
// the rest. A domain error and nil are returned unchanged. The cause is
// kept (errors.Is and errors.As still find it, and the log shows it), but
// clients see only the message.
func DomainError(err error, kind string) error {
	switch Classify(err) {
	case ClassNone, ClassDomain:
		return err
	case ClassNotFound:
		return domain.NotFound(kind)
	case ClassDenied:
		return domain.Wrap(err, domain.CodeForbidden, "not permitted")
	case ClassCancelled:
		return domain.Wrap(err, domain.CodeUnavailable, "request cancelled or timed out")
	case ClassTransient:
		return domain.Wrap(err, domain.CodeUnavailable, "the database is unavailable, try again")
	case ClassInvalid:
		return domain.Wrap(err, domain.CodeBadUserInput, "invalid "+kind)
	case ClassConflict:
		return domain.Wrap(err, domain.CodeConflict, "the "+kind+" conflicts with a concurrent change, try again")
	default:
		return domain.Wrap(err, domain.CodeInternal, "internal error")
	}
}

// Optional is the answer of a lookup of at most one row (Only, First):
// row and err, except that ent's not-found is no row and no error.
func Optional[T any](row *T, err error) (*T, error) {
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return row, err
}
