package store_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/ent/message"
	entsource "github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// beneathConversation are the probes of alice's conversation and of every
// row beneath it.
var beneathConversation = []string{"Conversation", "Message", "Attempt", "Source", "Feedback"}

// TestPrivacyHidesDeletedConversations: once alice's conversation is
// DELETED, it and every row beneath it are hidden from alice and from the
// tenant's admin, by every kind of read, update, delete, node lookup and
// edge predicate, exactly like ids that exist nowhere. IncludeDeleted
// brings them back (for restore and the admin's deleted listing); the
// system jobs (purge) always see them.
func TestPrivacyHidesDeletedConversations(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		c := db.Client
		f := seed(t, c)
		sys := viewer.SystemJobContext(context.Background(), viewer.JobPurge)
		nodeType := ent.WithNodeType(db.NodeType)
		require.NoError(t, c.Conversation.UpdateOneID(f.ConvAlice).SetStatus(conversation.StatusDELETED).Exec(sys))

		for _, v := range []*viewer.Viewer{alice, carol} {
			t.Run(v.UserID, func(t *testing.T) {
				ctx := as(v)
				for _, name := range beneathConversation {
					p := probeByName(t, name)
					id, missing := p.id(f), uuid.Must(uuid.NewV7())
					t.Run(name, func(t *testing.T) {
						err := p.get(ctx, c, id)
						assert.True(t, ent.IsNotFound(err), "get: %v", err)
						sameOutcome(t, "get", err, p.get(ctx, c, missing))
						n, err := p.count(ctx, c, id)
						require.NoError(t, err)
						assert.Zero(t, n, "count")
						has, err := p.listHas(ctx, c, id)
						require.NoError(t, err)
						assert.False(t, has, "list")
						stmts, err := nodeLookup(ctx, c, id, nodeType)
						assert.ErrorIs(t, err, store.ErrUnknownNode, "node")
						stmtsMissing, errMissing := nodeLookup(ctx, c, missing, nodeType)
						sameOutcome(t, "node", err, errMissing)
						assert.Equal(t, stmtsMissing, stmts, "node: statements of a hidden id and of a missing one")

						sameOutcome(t, "updateOne", p.updateOne(ctx, c, id), p.updateOne(ctx, c, missing))
						un, err := p.updateMany(ctx, c, id)
						require.NoError(t, err)
						assert.Zero(t, un, "updateMany rows")
						sameOutcome(t, "deleteOne", p.deleteOne(ctx, c, id), p.deleteOne(ctx, c, missing))
						dn, err := p.deleteMany(ctx, c, id)
						require.NoError(t, err)
						assert.Zero(t, dn, "deleteMany rows")

						require.NoError(t, p.get(sys, c, id), "the row must survive")
						require.NoError(t, p.get(authz.IncludeDeleted(ctx), c, id), "IncludeDeleted shows it")
					})
				}

				edges := []struct {
					name string
					run  func(ctx context.Context) (int, error)
				}{
					{"knowledgeBaseHasConversation", func(ctx context.Context) (int, error) {
						return c.KnowledgeBase.Query().Where(knowledgebase.ID(f.KBA), knowledgebase.HasConversationsWith(conversation.ID(f.ConvAlice))).Count(ctx)
					}},
					{"messageHasAttempt", func(ctx context.Context) (int, error) {
						return c.Message.Query().Where(message.HasAttempt()).Count(ctx)
					}},
					{"attemptHasSources", func(ctx context.Context) (int, error) {
						return c.Attempt.Query().Where(attempt.HasSourcesWith(entsource.LabelEQ("C1"))).Count(ctx)
					}},
					{"eagerLoadedMessages", func(ctx context.Context) (int, error) {
						kb, err := c.KnowledgeBase.Query().Where(knowledgebase.ID(f.KBA)).
							WithConversations(func(q *ent.ConversationQuery) { q.WithMessages() }).Only(ctx)
						if err != nil {
							return 0, err
						}
						return len(kb.Edges.Conversations), nil
					}},
				}
				for _, e := range edges {
					t.Run("edge/"+e.name, func(t *testing.T) {
						n, err := e.run(ctx)
						require.NoError(t, err)
						assert.Zero(t, n, "hidden")
						n, err = e.run(authz.IncludeDeleted(ctx))
						require.NoError(t, err)
						assert.Equal(t, 1, n, "IncludeDeleted shows it")
					})
				}
			})
		}
		// Restoring brings everything back for ordinary reads.
		require.NoError(t, c.Conversation.UpdateOneID(f.ConvAlice).SetStatus(conversation.StatusACTIVE).
			Exec(authz.IncludeDeleted(as(alice))))
		for _, name := range beneathConversation {
			p := probeByName(t, name)
			assert.NoError(t, p.get(as(alice), c, p.id(f)), "%s visible after restore", name)
		}
	})
}
