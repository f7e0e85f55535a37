package knowledge

import (
	"context"

	"github.com/ragchat/ragchat/ent"
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
