package store

import (
	"context"

	"github.com/ragchat/ragchat/ent"
)

// WithTx runs fn in a transaction of client, committing when fn succeeds
// and rolling back otherwise (also when fn panics); it returns fn's error,
// or the commit's.
func WithTx(ctx context.Context, client *ent.Client, fn func(tx *ent.Tx) error) error {
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
