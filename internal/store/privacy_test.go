package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// hidden lists, per outsider, the probes whose fixture row that outsider
// must not be able to touch. Rows beneath alice's conversation are hidden
// from everyone but alice and A's admin; the ops document from everyone
// outside group ops (admins and agents curate knowledge and see it); the
// audit event from every non-admin; everything of A from tenant B.
var hidden = []struct {
	who    string
	v      *viewer.Viewer
	probes []string
}{
	{"otherTenantMember", dave, all()},
	{"otherTenantAdmin", erin, all()},
	{"otherTenantSameSubject", mallory, all()},
	{"sameTenantNonOwner", bob, []string{"Document", "DocumentGrant", "Chunk", "Conversation", "Message", "Attempt", "Source", "Feedback", "Attachment", "AuditEvent"}},
	{"sameTenantOpsMember", olga, []string{"Conversation", "Message", "Attempt", "Source", "Feedback", "Attachment", "AuditEvent"}},
	{"ownerReadsAudit", alice, []string{"AuditEvent"}},
}

func all() []string {
	out := make([]string, len(probes))
	for i, p := range probes {
		out[i] = p.name
	}
	return out
}

func probeByName(t *testing.T, name string) entityProbe {
	for _, p := range probes {
		if p.name == name {
			return p
		}
	}
	t.Fatalf("no probe %q", name)
	return entityProbe{}
}

// sameOutcome asserts that err (for a hidden row) cannot be told apart from
// errMissing (for an id that exists nowhere): same not-found-ness, same
// privacy decision, same message.
func sameOutcome(t *testing.T, op string, err, errMissing error) {
	t.Helper()
	assert.Equal(t, ent.IsNotFound(errMissing), ent.IsNotFound(err), "%s: not-found-ness differs", op)
	assert.Equal(t, errors.Is(errMissing, privacy.Deny), errors.Is(err, privacy.Deny), "%s: privacy decision differs", op)
	if err != nil && errMissing != nil {
		assert.Equal(t, errMissing.Error(), err.Error(), "%s: message differs", op)
	}
	assert.Equal(t, errMissing == nil, err == nil, "%s: success differs", op)
}

func TestPrivacyMatrix(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		c := db.Client
		f := seed(t, c)
		sys := viewer.SystemJobContext(context.Background(), viewer.JobPurge)
		nodeType := ent.WithNodeType(db.NodeType)

		for _, h := range hidden {
			t.Run(h.who, func(t *testing.T) {
				ctx := as(h.v)
				for _, name := range h.probes {
					p := probeByName(t, name)
					id := p.id(f)
					missing := uuid.Must(uuid.NewV7())
					t.Run(name, func(t *testing.T) {
						err := p.get(ctx, c, id)
						require.Error(t, err)
						assert.True(t, ent.IsNotFound(err), "get: %v", err)
						sameOutcome(t, "get", err, p.get(ctx, c, missing))

						n, err := p.count(ctx, c, id)
						require.NoError(t, err)
						assert.Zero(t, n, "count")

						has, err := p.listHas(ctx, c, id)
						require.NoError(t, err)
						assert.False(t, has, "list")

						if p.node {
							stmts, err := nodeLookup(ctx, c, id, nodeType)
							assert.ErrorIs(t, err, store.ErrUnknownNode, "node")
							stmtsMissing, errMissing := nodeLookup(ctx, c, missing, nodeType)
							assert.ErrorIs(t, errMissing, store.ErrUnknownNode, "node of a missing id")
							sameOutcome(t, "node", err, errMissing)
							assert.Equal(t, stmtsMissing, stmts, "node: statements of a hidden id and of a missing one")
						}

						sameOutcome(t, "updateOne", p.updateOne(ctx, c, id), p.updateOne(ctx, c, missing))
						un, uerr := p.updateMany(ctx, c, id)
						mn, merr := p.updateMany(ctx, c, missing)
						sameOutcome(t, "updateMany", uerr, merr)
						assert.Equal(t, mn, un, "updateMany rows")
						assert.Zero(t, un, "updateMany rows")

						sameOutcome(t, "deleteOne", p.deleteOne(ctx, c, id), p.deleteOne(ctx, c, missing))
						dn, derr := p.deleteMany(ctx, c, id)
						mdn, mderr := p.deleteMany(ctx, c, missing)
						sameOutcome(t, "deleteMany", derr, mderr)
						assert.Equal(t, mdn, dn, "deleteMany rows")
						assert.Zero(t, dn, "deleteMany rows")

						// The row is still there, untouched.
						require.NoError(t, p.get(sys, c, id), "row must survive")
					})
				}
			})
		}
		assertUntouched(t, sys, c, f)
		assertPositiveControls(t, c, f, nodeType)
	})
}

// nodeLookup resolves id as a node and returns how many statements it
// sent (store.WithStatementTally) and its error.
func nodeLookup(ctx context.Context, c *ent.Client, id uuid.UUID, nodeType ent.NodeOption) (uint64, error) {
	ctx, tally := store.WithStatementTally(ctx)
	_, err := c.Noder(ctx, id, nodeType)
	return tally.Count(), err
}

// assertUntouched checks that no probe's update landed.
func assertUntouched(t *testing.T, sys context.Context, c *ent.Client, f fixture) {
	t.Helper()
	kb := c.KnowledgeBase.GetX(sys, f.KBA)
	assert.Equal(t, "Help A", kb.Name)
	doc := c.Document.GetX(sys, f.DocOpsA)
	assert.Equal(t, document.VisibilityRESTRICTED, doc.Visibility)
	assert.Equal(t, "alice private topic", c.Conversation.GetX(sys, f.ConvAlice).Title)
	assert.Equal(t, "secret on-call phone 555", c.Chunk.GetX(sys, f.ChunkOpsA).Content)
	assert.Equal(t, "UP", string(c.Feedback.GetX(sys, f.FeedbackAlice).Rating))
	assert.Nil(t, c.Message.GetX(sys, f.MsgAlice).Model)
	assert.NotNil(t, c.Source.GetX(sys, f.SourceAlice).ChunkID)
}

// assertPositiveControls proves the matrix is not vacuous: the rows exist
// and their rightful viewers do see them.
func assertPositiveControls(t *testing.T, c *ent.Client, f fixture, nodeType ent.NodeOption) {
	t.Helper()
	for _, v := range []*viewer.Viewer{alice, carol} {
		ctx := as(v)
		for _, name := range []string{"Conversation", "Message", "Attempt", "Source", "Feedback", "KnowledgeBase", "Document"} {
			p := probeByName(t, name)
			id := p.id(f)
			if name == "Document" {
				id = f.DocPublicA
			}
			assert.NoError(t, p.get(ctx, c, id), "%s should see %s", v.UserID, name)
		}
		_, err := c.Noder(ctx, f.ConvAlice, nodeType)
		assert.NoError(t, err, "%s node(conversation)", v.UserID)
	}
	assert.NoError(t, probeByName(t, "AuditEvent").get(as(carol), c, f.AuditA), "admin reads audit")
	assert.NoError(t, probeByName(t, "Chunk").get(as(olga), c, f.ChunkOpsA), "ops member reads ops chunk")
	assert.NoError(t, probeByName(t, "Document").get(as(olga), c, f.DocOpsA), "ops member reads ops doc")
	assert.NoError(t, probeByName(t, "Chunk").get(as(bob), c, f.ChunkPublicA), "member reads public chunk")
	n, err := c.Conversation.Query().Count(as(bob))
	require.NoError(t, err)
	assert.Zero(t, n, "bob owns no conversation")
	n, err = c.Conversation.Query().Count(as(dave))
	require.NoError(t, err)
	assert.Equal(t, 2, n, "dave sees his own two conversations")
}

func TestPrivacyEdges(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		c := db.Client
		f := seed(t, c)

		t.Run("eagerLoadSkipsHiddenChildren", func(t *testing.T) {
			kb := c.KnowledgeBase.Query().Where(knowledgebase.ID(f.KBA)).
				WithConversations().WithDocuments(func(q *ent.DocumentQuery) { q.WithChunks().WithGrants() }).
				OnlyX(as(bob))
			assert.Empty(t, kb.Edges.Conversations, "bob must not load alice's conversation")
			require.Len(t, kb.Edges.Documents, 1, "bob sees the public document only")
			assert.Equal(t, f.DocPublicA, kb.Edges.Documents[0].ID)
			assert.Len(t, kb.Edges.Documents[0].Edges.Chunks, 1)
		})
		t.Run("eagerLoadThroughForgedCrossTenantEdge", func(t *testing.T) {
			conv := c.Conversation.Query().Where(conversation.ID(f.ConvForged)).WithKnowledgeBase().OnlyX(as(dave))
			assert.Nil(t, conv.Edges.KnowledgeBase, "A's knowledge base must not load into B")
			_, err := conv.QueryKnowledgeBase().Only(as(dave))
			assert.True(t, ent.IsNotFound(err), "traversal: %v", err)
			for _, v := range []*viewer.Viewer{dave, erin} {
				n, err := c.Conversation.QueryKnowledgeBase(conv).Count(as(v))
				require.NoError(t, err)
				assert.Zero(t, n)
			}
		})
		t.Run("eagerLoadForAdminOfOtherTenant", func(t *testing.T) {
			kbs := c.KnowledgeBase.Query().WithConversations().WithDocuments().AllX(as(erin))
			require.Len(t, kbs, 1)
			assert.Equal(t, f.KBB, kbs[0].ID)
			for _, conv := range kbs[0].Edges.Conversations {
				assert.NotEqual(t, f.ConvAlice, conv.ID)
			}
		})
		t.Run("messagesEagerLoadAttemptOnlyForOwner", func(t *testing.T) {
			msgs := c.Message.Query().WithAttempt().WithConversation().AllX(as(bob))
			assert.Empty(t, msgs)
			msgs = c.Message.Query().Where(message.ID(f.AnswerAlice)).WithAttempt().AllX(as(alice))
			require.Len(t, msgs, 1)
			require.NotNil(t, msgs[0].Edges.Attempt)
		})

		hasWith := []struct {
			name string
			v    *viewer.Viewer
			run  func(ctx context.Context) (int, error)
		}{
			{"memberProbesOthersConversationTitle", bob, func(ctx context.Context) (int, error) {
				return c.KnowledgeBase.Query().Where(knowledgebase.HasConversationsWith(conversation.TitleContains("private"))).Count(ctx)
			}},
			{"memberProbesAnyConversation", bob, func(ctx context.Context) (int, error) {
				return c.KnowledgeBase.Query().Where(knowledgebase.ID(f.KBA), knowledgebase.HasConversations()).Count(ctx)
			}},
			{"memberProbesRestrictedChunkText", bob, func(ctx context.Context) (int, error) {
				return c.KnowledgeBase.Query().Where(knowledgebase.HasChunksWith(chunk.ContentContains("555"))).Count(ctx)
			}},
			{"memberProbesRestrictedDocTitle", bob, func(ctx context.Context) (int, error) {
				return c.KnowledgeBase.Query().Where(knowledgebase.HasDocumentsWith(document.TitleContains("secret"))).Count(ctx)
			}},
			{"memberProbesChunkThroughDocument", bob, func(ctx context.Context) (int, error) {
				return c.Document.Query().Where(document.HasChunksWith(chunk.ContentContains("555"))).Count(ctx)
			}},
			{"otherTenantProbesThroughForgedEdge", dave, func(ctx context.Context) (int, error) {
				return c.Conversation.Query().Where(conversation.HasKnowledgeBaseWith(knowledgebase.Name("Help A"))).Count(ctx)
			}},
			{"otherTenantAdminProbesThroughForgedEdge", erin, func(ctx context.Context) (int, error) {
				return c.Conversation.Query().Where(conversation.HasKnowledgeBase(), conversation.ID(f.ConvForged)).Count(ctx)
			}},
			{"otherTenantSameSubjectProbesMessages", mallory, func(ctx context.Context) (int, error) {
				return c.Conversation.Query().Where(conversation.HasMessagesWith(message.ContentContains("secret"))).Count(ctx)
			}},
		}
		for _, tc := range hasWith {
			t.Run("hasWith/"+tc.name, func(t *testing.T) {
				n, err := tc.run(as(tc.v))
				require.NoError(t, err)
				assert.Zero(t, n)
			})
		}
		t.Run("hasWith/positiveControl", func(t *testing.T) {
			n, err := c.KnowledgeBase.Query().Where(knowledgebase.HasConversationsWith(conversation.TitleContains("private"))).Count(as(alice))
			require.NoError(t, err)
			assert.Equal(t, 1, n)
			n, err = c.KnowledgeBase.Query().Where(knowledgebase.HasChunksWith(chunk.ContentContains("555"))).Count(as(olga))
			require.NoError(t, err)
			assert.Equal(t, 1, n)
		})
	})
}

func TestPrivacyCreates(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		c := db.Client
		f := seed(t, c)
		cases := []struct {
			name string
			run  func() error
		}{
			{"noViewer", func() error {
				return c.KnowledgeBase.Create().SetName("x").SetEmbeddingModel("m").SetEmbeddingDimensions(1).Exec(context.Background())
			}},
			{"explicitOtherTenant", func() error {
				return c.KnowledgeBase.Create().SetTenantID("acme").SetName("x").SetEmbeddingModel("m").SetEmbeddingDimensions(1).Exec(as(erin))
			}},
			{"messageInOthersConversation", func() error {
				return c.Message.Create().SetConversationID(f.ConvAlice).SetOwnerID("alice").SetSequenceNo(9).
					SetRole(message.RoleUSER).SetContent("x").Exec(as(bob))
			}},
			{"conversationForAnotherUser", func() error {
				return c.Conversation.Create().SetUserID("alice").SetKnowledgeBaseID(f.KBA).
					SetExpiresAt(time.Now()).SetAbsoluteExpiresAt(time.Now()).Exec(as(carol))
			}},
			{"feedbackAsSomeoneElse", func() error {
				return c.Feedback.Create().SetAttemptID(f.AttemptAlice).SetOwnerID("alice").SetUserID("bob").SetRating("DOWN").Exec(as(alice))
			}},
			{"memberCreatesKnowledge", func() error {
				return c.KnowledgeBase.Create().SetName("x").SetEmbeddingModel("m").SetEmbeddingDimensions(1).Exec(as(bob))
			}},
			{"memberTamperswithAudit", func() error {
				return c.AuditEvent.UpdateOneID(f.AuditA).Exec(as(carol))
			}},
			{"viewerCreatesTenant", func() error {
				return c.Tenant.Create().SetID("evil").SetName("Evil").Exec(as(carol))
			}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				err := tc.run()
				require.Error(t, err)
				assert.True(t, errors.Is(err, privacy.Deny), "want a privacy denial, got %v", err)
			})
		}
		t.Run("tenantFromViewer", func(t *testing.T) {
			kb := c.KnowledgeBase.Create().SetName("mine").SetEmbeddingModel("m").SetEmbeddingDimensions(1).SaveX(as(erin))
			assert.Equal(t, "globex", kb.TenantID)
		})
		t.Run("tenantRowIsPrivate", func(t *testing.T) {
			_, err := c.Tenant.Get(as(dave), "acme")
			assert.True(t, ent.IsNotFound(err))
			tn, err := c.Tenant.Get(as(dave), "globex")
			require.NoError(t, err)
			assert.Equal(t, "Globex", tn.Name)
		})
	})
}
