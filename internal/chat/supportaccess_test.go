package chat_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/ent/supportgrant"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	feedbacksvc "github.com/ragchat/ragchat/internal/feedback"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/support"
	"github.com/ragchat/ragchat/internal/viewer"
)

// A support agent of the demo tenant.
var sam = &viewer.Viewer{TenantID: demo.TenantID, UserID: "sam", Roles: []viewer.Role{viewer.RoleSupport}}

// supportWorld is alice's answered conversation with feedback, and a
// grant for sam on it, approved unless pending is set.
type supportWorld struct {
	conv    uuid.UUID
	att     *ent.Attempt
	grant   *ent.SupportGrant
	sources int // how many sources the attempt has
}

func grantedWorld(t *testing.T, e *env, pending bool) supportWorld {
	t.Helper()
	conv := e.conversation(t, alice)
	o := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
	_, err := e.feedback.Submit(as(alice), feedbacksvc.Input{AttemptID: o.attempt.ID, Rating: "DOWN", Reasons: []domain.FeedbackReason{domain.ReasonOther}})
	require.NoError(t, err)
	g, err := e.support.Request(as(sam), support.RequestInput{ConversationID: conv.ID, Reason: "ticket 7"})
	require.NoError(t, err)
	if !pending {
		g, err = e.support.Approve(as(alice), g.ID)
		require.NoError(t, err)
	}
	sys := viewer.SystemJobContext(t.Context(), viewer.JobPurge)
	n, err := e.db.Client.Source.Query().Where(source.AttemptID(o.attempt.ID)).Count(sys)
	require.NoError(t, err)
	require.Positive(t, n)
	return supportWorld{conv: conv.ID, att: o.attempt, grant: g, sources: n}
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

// TestSupportGrantPrivacyRules checks the Ent privacy rules themselves:
// an active grant opens exactly the conversation, its messages, attempts
// and sources to reads (edge predicates included), never feedback; a
// pending, revoked or expired grant opens nothing; writes through Ent under
// an active grant match no row.
func TestSupportGrantPrivacyRules(t *testing.T) {
	open := map[string]int{"conversation": 1, "message": 2, "attempt": 1, "source": 1, "feedback": 0, "edge": 1}
	closed := map[string]int{"conversation": 0, "message": 0, "attempt": 0, "source": 0, "feedback": 0, "edge": 0}
	sys := viewer.SystemJobContext(t.Context(), viewer.JobPurge)
	cases := []struct {
		name    string
		pending bool
		after   func(t *testing.T, e *env, w supportWorld)
		want    map[string]int
	}{
		{"approved", false, nil, open},
		{"pending", true, nil, closed},
		{"revoked", false, func(t *testing.T, e *env, w supportWorld) {
			_, err := e.support.Revoke(as(alice), w.grant.ID)
			require.NoError(t, err)
		}, closed},
		{"revoked by the agent", false, func(t *testing.T, e *env, w supportWorld) {
			_, err := e.support.Revoke(as(sam), w.grant.ID)
			require.NoError(t, err)
		}, closed},
		{"expired", false, func(t *testing.T, e *env, w supportWorld) {
			require.NoError(t, e.db.Client.SupportGrant.UpdateOneID(w.grant.ID).
				SetExpiresAt(time.Now().Add(-time.Second)).Exec(sys))
		}, closed},
		{"conversation deleted", false, func(t *testing.T, e *env, w supportWorld) {
			_, err := e.eng.DeleteConversation(as(alice), w.conv, "")
			require.NoError(t, err)
		}, closed},
	}
	forEach(t, func(t *testing.T, e *env) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				w := grantedWorld(t, e, tc.pending)
				if tc.after != nil {
					tc.after(t, e, w)
				}
				want := map[string]int{}
				for k, n := range tc.want {
					want[k] = n
				}
				if want["source"] > 0 {
					want["source"] = w.sources
				}
				assert.Equal(t, want, visible(t, e, w))
				if tc.name != "approved" {
					return
				}
				// Writes under an active grant match nothing.
				ctx := as(sam)
				c := e.db.Client
				err := c.Conversation.UpdateOneID(w.conv).SetTitle("mine now").Exec(ctx)
				assert.True(t, ent.IsNotFound(err), "conversation update: %v", err)
				n, err := c.Message.Delete().Where(message.ConversationID(w.conv)).Exec(ctx)
				require.NoError(t, err)
				assert.Zero(t, n, "messages deleted under a grant")
				n, err = c.Attempt.Update().Where(attempt.ConversationID(w.conv)).SetAnswer("x").Save(ctx)
				require.NoError(t, err)
				assert.Zero(t, n, "attempts updated under a grant")
				_, err = e.eng.RenameConversation(ctx, w.conv, "x")
				assert.Equal(t, domain.CodeNotFound, code(err))
				_, err = e.eng.Ask(ctx, chat.AskInput{ConversationID: w.conv, ClientMessageID: "k", Question: "hi"})
				assert.Equal(t, domain.CodeNotFound, code(err))
				_, err = e.eng.DeleteConversation(ctx, w.conv, "")
				assert.Equal(t, domain.CodeNotFound, code(err))
				_, err = e.feedback.Submit(ctx, feedbacksvc.Input{AttemptID: w.att.ID, Rating: "UP"})
				assert.Equal(t, domain.CodeNotFound, code(err))
				// Nor may the agent create or decide grants for others.
				err = c.SupportGrant.Create().SetConversationID(w.conv).SetAgentID("eve").SetConversationOwnerID("alice").
					SetReason("r").SetDurationSeconds(60).SetExpiresAt(time.Now().Add(time.Hour)).Exec(ctx)
				assert.Error(t, err, "a grant created for another agent")
				// The agent can neither prolong nor re-decide their grant,
				// nor delete it, even through Ent; revoking is allowed.
				err = c.SupportGrant.UpdateOneID(w.grant.ID).SetExpiresAt(time.Now().Add(365 * 24 * time.Hour)).Exec(ctx)
				assert.True(t, ent.IsNotFound(err), "agent extends the grant: %v", err)
				err = c.SupportGrant.UpdateOneID(w.grant.ID).SetStatus(supportgrant.StatusDENIED).Exec(ctx)
				assert.True(t, ent.IsNotFound(err), "agent re-decides the grant: %v", err)
				_, err = c.SupportGrant.Delete().Exec(ctx)
				assert.Error(t, err, "agent deletes grants")
				g, err := c.SupportGrant.Get(sys, w.grant.ID)
				require.NoError(t, err)
				assert.Equal(t, w.grant.ExpiresAt.Unix(), g.ExpiresAt.Unix())
				assert.Equal(t, supportgrant.StatusAPPROVED, g.Status)
				conv, err := c.Conversation.Get(sys, w.conv)
				require.NoError(t, err)
				assert.NotEqual(t, "mine now", conv.Title)
			})
		}
	})
}
