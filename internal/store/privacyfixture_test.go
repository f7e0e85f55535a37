package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/pgvector/pgvector-go"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

// The cast of the privacy matrix. Tenant "acme" (A) holds everything under
// test; tenant "globex" (B) is the other tenant.
var (
	alice = &viewer.Viewer{TenantID: "acme", UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}}
	bob   = &viewer.Viewer{TenantID: "acme", UserID: "bob", Roles: []viewer.Role{viewer.RoleMember}}
	olga  = &viewer.Viewer{TenantID: "acme", UserID: "olga", Roles: []viewer.Role{viewer.RoleMember}, Groups: []string{"ops"}}
	carol = &viewer.Viewer{TenantID: "acme", UserID: "carol", Roles: []viewer.Role{viewer.RoleAdmin}}
	dave  = &viewer.Viewer{TenantID: "globex", UserID: "dave", Roles: []viewer.Role{viewer.RoleMember}}
	erin  = &viewer.Viewer{TenantID: "globex", UserID: "erin", Roles: []viewer.Role{viewer.RoleAdmin, viewer.RoleAgent}}
	// mallory is a member of B who claims alice's user id: same subject,
	// other tenant. She must see nothing of alice's.
	mallory = &viewer.Viewer{TenantID: "globex", UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}}
)

// fixture holds the ids of tenant A's rows (owned by alice where owned) and
// of tenant B's own rows, including a B conversation that forges an edge
// to A's knowledge base.
type fixture struct {
	KBA, DocPublicA, DocOpsA, ChunkPublicA, ChunkOpsA, GrantOpsA uuid.UUID
	ConvAlice, MsgAlice, AnswerAlice, AttemptAlice, SourceAlice  uuid.UUID
	FeedbackAlice, AuditA                                        uuid.UUID
	AttachmentAlice                                              uuid.UUID
	KBB, ConvDave, ConvForged                                    uuid.UUID
}

func as(v *viewer.Viewer) context.Context { return viewer.NewContext(context.Background(), v) }

func vec(x float32) pgvector.Vector {
	f := make([]float32, domain.EmbeddingDimensions)
	f[0], f[1] = x, 1
	return pgvector.NewVector(f)
}

// seed builds the fixture. Rows of A are created by A's own viewers (so the
// create path and its tenant/owner rules are exercised too); only tenants
// and the forged cross-tenant row use the system context.
func seed(t *testing.T, c *ent.Client) fixture {
	t.Helper()
	sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	for _, tn := range []struct{ id, name string }{{"acme", "Acme"}, {"globex", "Globex"}} {
		_, err := c.Tenant.Create().SetID(tn.id).SetName(tn.name).Save(sys)
		require.NoError(t, err)
	}
	var f fixture
	now := time.Now()

	// Tenant A knowledge, curated by its admin.
	kb := c.KnowledgeBase.Create().SetName("Help A").SetEmbeddingModel("m").SetEmbeddingDimensions(1024).SaveX(as(carol))
	f.KBA = kb.ID
	pub := c.Document.Create().SetKnowledgeBaseID(kb.ID).SetTitle("Public A").SetStatus(document.StatusREADY).SaveX(as(carol))
	ops := c.Document.Create().SetKnowledgeBaseID(kb.ID).SetTitle("Ops secret A").SetStatus(document.StatusREADY).
		SetVisibility(document.VisibilityRESTRICTED).SaveX(as(carol))
	f.DocPublicA, f.DocOpsA = pub.ID, ops.ID
	f.GrantOpsA = c.DocumentGrant.Create().SetDocumentID(ops.ID).SetPrincipalKind(documentgrant.PrincipalKindGROUP).
		SetPrincipal("ops").SaveX(as(carol)).ID
	f.ChunkPublicA = c.Chunk.Create().SetDocumentID(pub.ID).SetKnowledgeBaseID(kb.ID).SetOrdinal(0).
		SetContent("public upload limit 20MB").SetTokenCount(5).SetEmbedding(vec(1)).SaveX(as(carol)).ID
	f.ChunkOpsA = c.Chunk.Create().SetDocumentID(ops.ID).SetKnowledgeBaseID(kb.ID).SetOrdinal(0).
		SetContent("secret on-call phone 555").SetTokenCount(5).SetEmbedding(vec(2)).SaveX(as(carol)).ID

	// Alice's conversation and everything beneath it, created as alice.
	conv := c.Conversation.Create().SetUserID("alice").SetKnowledgeBaseID(kb.ID).SetTitle("alice private topic").
		SetExpiresAt(now.Add(time.Hour)).SetAbsoluteExpiresAt(now.Add(24 * time.Hour)).SaveX(as(alice))
	f.ConvAlice = conv.ID
	msg := c.Message.Create().SetConversationID(conv.ID).SetOwnerID("alice").SetSequenceNo(1).
		SetRole(message.RoleUSER).SetContent("alice secret question").SetClientMessageID("c1").SaveX(as(alice))
	f.MsgAlice = msg.ID
	att := c.Attempt.Create().SetConversationID(conv.ID).SetOwnerID("alice").SetUserMessageID(msg.ID).
		SetOriginalQuestion("alice secret question").SetStartedAt(now).SaveX(as(alice))
	f.AttemptAlice = att.ID
	f.AnswerAlice = c.Message.Create().SetConversationID(conv.ID).SetOwnerID("alice").SetSequenceNo(2).
		SetRole(message.RoleASSISTANT).SetContent("answer [C1]").SetAttemptID(att.ID).SaveX(as(alice)).ID
	f.SourceAlice = c.Source.Create().SetAttemptID(att.ID).SetOwnerID("alice").SetChunkID(f.ChunkPublicA).
		SetDocumentID(pub.ID).SetLabel("C1").SetRank(1).SetScore(0.9).SetSnippet("public upload limit").
		SetDocumentTitle("Public A").SetDocumentVersion(1).SetCited(true).SaveX(as(alice)).ID
	f.FeedbackAlice = c.Feedback.Create().SetAttemptID(att.ID).SetOwnerID("alice").SetUserID("alice").
		SetRating("UP").SaveX(as(alice)).ID
	f.AttachmentAlice = c.Attachment.Create().SetConversationID(conv.ID).SetOwnerID("alice").
		SetName("alice secret.txt").SetMediaType("text/plain").SetSize(5).
		SetSha256("0000000000000000000000000000000000000000000000000000000000000000").
		SetBlobKey("attachments/acme/alice").SaveX(as(alice)).ID
	f.AuditA = c.AuditEvent.Create().SetActor("alice").SetAction("conversation.delete").
		SetTargetType("Conversation").SetTargetID(conv.ID.String()).SaveX(as(alice)).ID

	// Tenant B: its own knowledge base and a conversation of dave's, plus a
	// conversation whose knowledge_base_id forges an edge into tenant A.
	kbB := c.KnowledgeBase.Create().SetName("Help B").SetEmbeddingModel("m").SetEmbeddingDimensions(1024).SaveX(as(erin))
	f.KBB = kbB.ID
	f.ConvDave = c.Conversation.Create().SetUserID("dave").SetKnowledgeBaseID(kbB.ID).SetTitle("dave topic").
		SetExpiresAt(now.Add(time.Hour)).SetAbsoluteExpiresAt(now.Add(24 * time.Hour)).SaveX(as(dave)).ID
	f.ConvForged = c.Conversation.Create().SetTenantID("globex").SetUserID("dave").SetKnowledgeBaseID(kb.ID).
		SetTitle("forged").SetExpiresAt(now.Add(time.Hour)).SetAbsoluteExpiresAt(now.Add(24 * time.Hour)).SaveX(sys).ID
	return f
}
