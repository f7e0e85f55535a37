package chat_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// TestAskNeedsOneConnection: with model profiles on, an ask resolves its
// model inside its own transaction, so it needs one pooled connection, not
// two. Before, the resolver read through a second connection while the
// ask held its transaction's: as many concurrent asks as the pool has
// connections (50 streams on a pool of 40 in `ragchat-bench --only ttft`)
// each held one and waited for another, for ever. With a pool of one
// connection the ask now returns; the deadline only keeps a regression
// from hanging the test.
func TestAskNeedsOneConnection(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnvDeps(t, db, nil, func(d *chat.Deps) {
			d.Models = modelprofile.New(db.Client, modelprofile.NewEndpoints(d.Model, d.Model, nil))
		})
		conv := e.conversation(t, alice)
		db.SQL.SetMaxOpenConns(1)
		ctx, cancel := context.WithTimeout(as(alice), 20*time.Second)
		defer cancel()
		res, err := e.eng.Ask(ctx, chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
		db.SQL.SetMaxOpenConns(0)
		require.NoError(t, err, "an ask on a one-connection pool")
		e.wait(t, alice, res.Attempt.ID, 0)
	})
}
