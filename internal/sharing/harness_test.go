package sharing_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/pgvector/pgvector-go"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/sharing"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Viewers: alice owns the conversation; bob and dave are members of her
// tenant (dave in the "ops" group); carol is an admin; eve is of another
// tenant.
var (
	alice = &viewer.Viewer{TenantID: demo.TenantID, UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}}
	bob   = &viewer.Viewer{TenantID: demo.TenantID, UserID: "bob", Roles: []viewer.Role{viewer.RoleMember}}
	dave  = &viewer.Viewer{TenantID: demo.TenantID, UserID: "dave", Roles: []viewer.Role{viewer.RoleMember}, Groups: []string{"ops"}}
	carol = &viewer.Viewer{TenantID: demo.TenantID, UserID: "carol", Roles: []viewer.Role{viewer.RoleAdmin}}
	eve   = &viewer.Viewer{TenantID: "other", UserID: "eve", Roles: []viewer.Role{viewer.RoleMember}}
)

func as(v *viewer.Viewer) context.Context { return viewer.NewContext(context.Background(), v) }

func code(err error) domain.Code { return domain.ErrorCode(err) }

// clock is a settable clock: real time plus an offset.
type clock struct{ offset atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// world is alice's conversation, as a tree:
//
//	q1 → a1 (attempt att1; sources C1: public document, C2: ops-only document, not cited)
//	   → q2 → a2 (attempt att2; source C1: public document)
//	   → q2b (another branch)
type world struct {
	db                  *store.DB
	svc                 *sharing.Service
	clock               *clock
	conv                *ent.Conversation
	q1, a1, q2, a2, q2b uuid.UUID
	att1, att2          uuid.UUID
	publicDoc           uuid.UUID
	restrictedDoc       uuid.UUID
	restrictedChunk     uuid.UUID
}

func vec(x float32) pgvector.Vector {
	f := make([]float32, domain.EmbeddingDimensions)
	f[0], f[1] = x, 1
	return pgvector.NewVector(f)
}

// forEach runs fn on both backends with a fresh world; opts edit the
// demo tenant's settings.
func forEach(t *testing.T, fn func(t *testing.T, w *world), opts ...func(*domain.TenantSettings)) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		w := &world{db: db, clock: &clock{}}
		w.svc = sharing.New(db.Client, sharing.Options{Now: w.clock.now})
		w.seed(t, opts...)
		fn(t, w)
	})
}

func (w *world) seed(t *testing.T, opts ...func(*domain.TenantSettings)) {
	c := w.db.Client
	st := domain.DefaultTenantSettings()
	for _, o := range opts {
		o(&st)
	}
	sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	require.NoError(t, c.Tenant.Create().SetID(demo.TenantID).SetName(demo.TenantName).SetSettings(st).Exec(sys))
	require.NoError(t, c.Tenant.Create().SetID("other").SetName("Other").SetSettings(domain.DefaultTenantSettings()).Exec(sys))
	kb := c.KnowledgeBase.Create().SetTenantID(demo.TenantID).SetName("kb").
		SetEmbeddingModel("offline-hash-1024").SetEmbeddingDimensions(1024).SaveX(sys)
	pub := c.Document.Create().SetKnowledgeBaseID(kb.ID).SetTitle("Public handbook").SetStatus(document.StatusREADY).SaveX(as(carol))
	ops := c.Document.Create().SetKnowledgeBaseID(kb.ID).SetTitle("Ops runbook").SetStatus(document.StatusREADY).
		SetVisibility(document.VisibilityRESTRICTED).SaveX(as(carol))
	c.DocumentGrant.Create().SetDocumentID(ops.ID).SetPrincipalKind(documentgrant.PrincipalKindGROUP).
		SetPrincipal("ops").ExecX(as(carol))
	pubChunk := c.Chunk.Create().SetDocumentID(pub.ID).SetKnowledgeBaseID(kb.ID).SetOrdinal(0).
		SetContent("upload limit 20MB").SetTokenCount(4).SetEmbedding(vec(1)).SaveX(as(carol))
	opsChunk := c.Chunk.Create().SetDocumentID(ops.ID).SetKnowledgeBaseID(kb.ID).SetOrdinal(0).
		SetContent("pager 555").SetTokenCount(2).SetEmbedding(vec(2)).SaveX(as(carol))
	w.restrictedDoc, w.restrictedChunk, w.publicDoc = ops.ID, opsChunk.ID, pub.ID

	now := time.Now()
	ctx := as(alice)
	w.conv = c.Conversation.Create().SetUserID("alice").SetKnowledgeBaseID(kb.ID).SetTitle("Upload limits").
		SetExpiresAt(now.Add(24 * time.Hour)).SetAbsoluteExpiresAt(now.Add(30 * 24 * time.Hour)).SaveX(ctx)
	seq := int64(0)
	msg := func(parent *uuid.UUID, depth int, role message.Role, content string, attempt *uuid.UUID) uuid.UUID {
		seq++
		return c.Message.Create().SetConversationID(w.conv.ID).SetOwnerID("alice").SetSequenceNo(seq).
			SetNillableParentID(parent).SetDepth(depth).SetRole(role).SetContent(content).
			SetNillableAttemptID(attempt).SetModel("secret-model-9").SetTraceID("trace-0123456789").SaveX(ctx).ID
	}
	w.q1 = msg(nil, 0, message.RoleUSER, "What is the upload limit?", nil)
	att := c.Attempt.Create().SetConversationID(w.conv.ID).SetOwnerID("alice").SetUserMessageID(w.q1).
		SetOriginalQuestion("What is the upload limit?").SetStartedAt(now).SetTraceID("trace-0123456789").SaveX(ctx)
	w.a1 = msg(&w.q1, 1, message.RoleASSISTANT, "It is 20MB [C1].", &att.ID)
	w.att1 = att.ID
	c.Source.Create().SetAttemptID(att.ID).SetOwnerID("alice").SetChunkID(pubChunk.ID).SetDocumentID(pub.ID).
		SetLabel("C1").SetRank(1).SetScore(0.9).SetSnippet("upload limit 20MB").SetDocumentTitle("Public handbook").
		SetDocumentVersion(1).SetCited(true).ExecX(ctx)
	c.Source.Create().SetAttemptID(att.ID).SetOwnerID("alice").SetChunkID(opsChunk.ID).SetDocumentID(ops.ID).
		SetLabel("C2").SetRank(2).SetScore(0.5).SetSnippet("pager 555").SetDocumentTitle("Ops runbook").
		SetDocumentVersion(1).ExecX(ctx)
	w.q2 = msg(&w.a1, 2, message.RoleUSER, "And for video?", nil)
	att2 := c.Attempt.Create().SetConversationID(w.conv.ID).SetOwnerID("alice").SetUserMessageID(w.q2).
		SetOriginalQuestion("And for video?").SetStartedAt(now).SetStatus(attempt.StatusCOMPLETED).SaveX(ctx)
	w.att2 = att2.ID
	w.a2 = msg(&w.q2, 3, message.RoleASSISTANT, "Video is 1GB [C1].", &att2.ID)
	c.Source.Create().SetAttemptID(att2.ID).SetOwnerID("alice").SetChunkID(pubChunk.ID).SetDocumentID(pub.ID).
		SetLabel("C1").SetRank(1).SetScore(0.8).SetSnippet("upload limit 20MB").SetDocumentTitle("Public handbook").
		SetDocumentVersion(1).SetCited(true).ExecX(ctx)
	w.q2b = msg(&w.a1, 2, message.RoleUSER, "Another branch question", nil)
}

// share creates a link of alice's conversation up to upTo.
func (w *world) share(t *testing.T, upTo uuid.UUID, in sharing.CreateInput) (*ent.ShareLink, string) {
	t.Helper()
	in.ConversationID, in.UpToMessageID = w.conv.ID, upTo
	if in.Audience == "" {
		in.Audience = "TENANT"
	}
	l, tok, err := w.svc.Create(as(alice), in)
	require.NoError(t, err)
	return l, tok
}

// publicOn allows public links and, with sources, their sources.
func publicOn(sources bool) func(*domain.TenantSettings) {
	return func(st *domain.TenantSettings) { st.PublicShareLinks, st.PublicShareSources = true, sources }
}

// settings returns the demo tenant's stored settings.
func (w *world) settings(t *testing.T) domain.TenantSettings {
	t.Helper()
	sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	return w.db.Client.Tenant.GetX(sys, demo.TenantID).Settings
}

// setSettings stores the demo tenant's settings.
func (w *world) setSettings(t *testing.T, st domain.TenantSettings) {
	t.Helper()
	sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	require.NoError(t, w.db.Client.Tenant.UpdateOneID(demo.TenantID).SetSettings(st).Exec(sys))
}
