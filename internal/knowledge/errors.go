package knowledge

import (
	"context"
	"errors"
	"fmt"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

// errCurator is returned to viewers who may not write knowledge.
func errCurator(action string) *domain.Error {
	return domain.Errorf(domain.CodeForbidden, "only admins and agents may %s", action)
}

// requireCurator fails with FORBIDDEN unless the viewer in ctx may write
// knowledge. The privacy policies enforce the same rule; checking first
// spares a member's request the embedding work.
func requireCurator(ctx context.Context, action string) (*viewer.Viewer, error) {
	v := viewer.FromContext(ctx)
	if v == nil {
		return nil, domain.Errorf(domain.CodeUnauthenticated, "sign in to %s", action)
	}
	if !v.CanCurateKnowledge() {
		return nil, errCurator(action)
	}
	return v, nil
}

// classify turns a storage error into the error the client should see:
// domain errors and context errors pass through, privacy denials become
// FORBIDDEN, validation failures BAD_USER_INPUT and constraint violations
// CONFLICT; anything else is wrapped as an internal error.
func classify(err error, action string) error {
	var de *domain.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &de):
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, privacy.Deny):
		return domain.Wrap(err, domain.CodeForbidden, fmt.Sprintf("not allowed to %s", action))
	case ent.IsValidationError(err):
		return domain.Wrap(err, domain.CodeBadUserInput, fmt.Sprintf("invalid input to %s", action))
	case ent.IsConstraintError(err):
		return domain.Wrap(err, domain.CodeConflict, fmt.Sprintf("could not %s: it conflicts with existing data", action))
	default:
		return fmt.Errorf("knowledge: %s: %w", action, err)
	}
}

// withTx runs fn in a transaction of client, committing when fn succeeds
// and rolling back otherwise (also when fn panics).
func withTx(ctx context.Context, client *ent.Client, fn func(tx *ent.Tx) error) (err error) {
	tx, err := client.Tx(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback()
			panic(p)
		}
	}()
	if err := fn(tx); err != nil {
		// A failed rollback leaves nothing to undo: the server discards
		// the transaction when its connection or context ends.
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
