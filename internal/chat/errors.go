package chat

import (
	"github.com/ragchat/ragchat/ent"
)

// rollback rolls tx back and returns err, so that the original error is
// what the caller sees. Storage errors become domain errors with
// store.DomainError, the one classifier of database errors.
func rollback(tx *ent.Tx, err error) error {
	_ = tx.Rollback()
	return err
}
