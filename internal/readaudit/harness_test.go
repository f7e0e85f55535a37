package readaudit_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/ent/supportgrant"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/readaudit"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Viewers of the demo tenant: a member and a support agent.
var (
	alice = &viewer.Viewer{TenantID: demo.TenantID, UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}}
	sam   = &viewer.Viewer{TenantID: demo.TenantID, UserID: "sam", Roles: []viewer.Role{viewer.RoleSupport}}
)

func as(v *viewer.Viewer) context.Context { return viewer.NewContext(context.Background(), v) }

// env is one backend whose client has the read audit installed, as the
// process that opens a client installs it, with the demo tenant and one
// knowledge base.
type env struct {
	db *store.DB
	kb uuid.UUID
}

// forEach runs fn on both backends with a fresh environment.
func forEach(t *testing.T, fn func(t *testing.T, e *env)) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		readaudit.Install(db.Client, nil)
		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		require.NoError(t, db.Client.Tenant.Create().SetID(demo.TenantID).SetName(demo.TenantName).
			SetSettings(domain.DefaultTenantSettings()).Exec(sys))
		kb, err := db.Client.KnowledgeBase.Create().SetTenantID(demo.TenantID).SetName(demo.KnowledgeBaseName).
			SetEmbeddingModel("offline-hash-1024").SetEmbeddingDimensions(1024).Save(sys)
		require.NoError(t, err)
		fn(t, &env{db: db, kb: kb.ID})
	})
}

// supportWorld is alice's answered conversation with feedback, and a
// grant for sam on it, approved.
type supportWorld struct {
	conv    uuid.UUID
	att     *ent.Attempt
	grant   *ent.SupportGrant
	sources int // how many sources the attempt has
}

// grantedWorld writes, through Ent as their owners, alice's conversation
// with one answered question (its user and assistant messages, the
// attempt with two sources, and feedback), and sam's grant on it, which
// alice approves.
func grantedWorld(t *testing.T, e *env) supportWorld {
	t.Helper()
	ctx, c, now := as(alice), e.db.Client, time.Now()
	conv, err := c.Conversation.Create().SetUserID("alice").SetKnowledgeBaseID(e.kb).SetLastSequenceNo(2).
		SetExpiresAt(now.Add(24 * time.Hour)).SetAbsoluteExpiresAt(now.Add(30 * 24 * time.Hour)).Save(ctx)
	require.NoError(t, err)
	question := "上传文件最大是多少？"
	msg, err := c.Message.Create().SetConversationID(conv.ID).SetOwnerID("alice").SetSequenceNo(1).
		SetRole(message.RoleUSER).SetContent(question).Save(ctx)
	require.NoError(t, err)
	att, err := c.Attempt.Create().SetConversationID(conv.ID).SetOwnerID("alice").SetUserMessageID(msg.ID).
		SetOriginalQuestion(question).SetStatus(attempt.StatusCOMPLETED).SetAnswer("50 MB [S1]").
		SetStartedAt(now).SetCompletedAt(now).Save(ctx)
	require.NoError(t, err)
	require.NoError(t, c.Message.Create().SetConversationID(conv.ID).SetOwnerID("alice").SetSequenceNo(2).
		SetRole(message.RoleASSISTANT).SetContent(att.Answer).SetAttemptID(att.ID).Exec(ctx))
	for i, label := range []string{"S1", "S2"} {
		require.NoError(t, c.Source.Create().SetAttemptID(att.ID).SetOwnerID("alice").SetLabel(label).SetRank(i+1).
			SetScore(0.5).SetSnippet("uploads are limited to 50 MB").SetDocumentTitle("Uploads").SetDocumentVersion(1).Exec(ctx))
	}
	require.NoError(t, c.Feedback.Create().SetAttemptID(att.ID).SetOwnerID("alice").SetUserID("alice").
		SetRating(feedback.RatingDOWN).Exec(ctx))
	g, err := c.SupportGrant.Create().SetConversationID(conv.ID).SetAgentID("sam").SetConversationOwnerID("alice").
		SetReason("ticket 7").SetDurationSeconds(24 * 3600).SetExpiresAt(now.Add(24 * time.Hour)).Save(as(sam))
	require.NoError(t, err)
	g, err = c.SupportGrant.UpdateOne(g).SetStatus(supportgrant.StatusAPPROVED).SetDecidedBy("alice").SetDecidedAt(now).Save(ctx)
	require.NoError(t, err)
	return supportWorld{conv: conv.ID, att: att, grant: g, sources: 2}
}

// visible counts, per table, the rows of w's conversation sam's queries
// and edge predicates reach.
func visible(t *testing.T, e *env, w supportWorld) map[string]int {
	t.Helper()
	ctx := as(sam)
	c := e.db.Client
	count := func(n int, err error) int {
		require.NoError(t, err)
		return n
	}
	return map[string]int{
		"conversation": count(c.Conversation.Query().Where(conversation.ID(w.conv)).Count(ctx)),
		"message":      count(c.Message.Query().Where(message.ConversationID(w.conv)).Count(ctx)),
		"attempt":      count(c.Attempt.Query().Where(attempt.ConversationID(w.conv)).Count(ctx)),
		"source":       count(c.Source.Query().Where(source.AttemptID(w.att.ID)).Count(ctx)),
		"feedback":     count(c.Feedback.Query().Where(feedback.AttemptID(w.att.ID)).Count(ctx)),
		"edge":         count(c.Conversation.Query().Where(conversation.ID(w.conv), conversation.HasMessages()).Count(ctx)),
	}
}
