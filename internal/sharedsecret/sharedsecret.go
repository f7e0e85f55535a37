// Package sharedsecret keeps the secrets every replica on one database
// agrees on without configuration (ent/schema/sharedsecret.go): the first
// replica to ask for one generates and writes it, and every replica,
// including those starting at the same moment, reads the row that won. Its
// one use is the development broker secret, so that replicas in
// development on one database seal and open each other's frames
// (cmd/ragchat; docs/DEPLOYMENT.md, "The broker's frames on a shared
// database").
package sharedsecret

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/sharedsecret"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Bytes is the size of a generated secret, which is stored as hex (64
// characters).
const Bytes = 32

// Broker names the development broker secret.
const Broker = "broker"

// Agree returns the secret named name, writing a generated one when the
// database has none; created reports whether this call's secret is the
// one written. Replicas that call it together agree: every insert but one
// does nothing (ON CONFLICT DO NOTHING), and all read the same row.
func Agree(ctx context.Context, client *ent.Client, name string) (secret []byte, created bool, err error) {
	ctx = viewer.SystemJobContext(ctx, viewer.JobSharedSecrets)
	raw := make([]byte, Bytes)
	if _, err := rand.Read(raw); err != nil {
		return nil, false, err
	}
	mine := hex.EncodeToString(raw)
	err = client.SharedSecret.Create().SetID(name).SetSecret(mine).
		OnConflictColumns(sharedsecret.FieldID).DoNothing().Exec(ctx)
	// A conflict inserts no row, which PostgreSQL's RETURNING reports as
	// no rows.
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, false, fmt.Errorf("shared secret %q: %w", name, err)
	}
	row, err := client.SharedSecret.Get(ctx, name)
	if err != nil {
		return nil, false, fmt.Errorf("shared secret %q: %w", name, err)
	}
	return []byte(row.Secret), row.Secret == mine, nil
}
