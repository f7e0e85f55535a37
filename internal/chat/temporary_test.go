package chat_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/conversationtag"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/ent/supportgrant"
	"github.com/ragchat/ragchat/internal/adminreport"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/feed"
	feedbacksvc "github.com/ragchat/ragchat/internal/feedback"
	"github.com/ragchat/ragchat/internal/support"
	"github.com/ragchat/ragchat/internal/tenantsettings"
	"github.com/ragchat/ragchat/internal/viewer"
)

// temporaryChats sets the tenant's temporary chat policy.
func temporaryChats(p domain.TemporaryChats) envOption {
	return func(_ *chat.Config, st *domain.TenantSettings) { st.TemporaryChats = p }
}

// temporary starts a temporary chat of v.
func (e *env) temporary(t *testing.T, v *viewer.Viewer) *ent.Conversation {
	t.Helper()
	c, err := e.eng.CreateConversation(as(v), chat.CreateConversationInput{Temporary: true})
	require.NoError(t, err)
	require.True(t, authz.IsTemporary(c))
	return c
}

// expire moves a temporary chat's expiry into the past (by the wall
// clock, which the privacy rules read), as a system job.
func (e *env) expire(t *testing.T, id uuid.UUID) {
	t.Helper()
	sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	require.NoError(t, e.db.Client.Conversation.UpdateOneID(id).
		SetTemporaryExpiresAt(time.Now().Add(-time.Second).UTC()).Exec(sys))
}

// TestCreateTemporaryChatUnderEachPolicy: ALLOWED makes a conversation
// temporary when asked for, FORBIDDEN refuses the request (FORBIDDEN,
// field temporary, nothing written) and makes normal ones otherwise,
// ENFORCED makes every conversation temporary. A temporary chat lasts the
// tenant's retention from its creation.
func TestCreateTemporaryChatUnderEachPolicy(t *testing.T) {
	cases := []struct {
		policy    domain.TemporaryChats
		temporary bool
		want      bool
		code      domain.Code
	}{
		{domain.TemporaryChatsAllowed, false, false, ""},
		{domain.TemporaryChatsAllowed, true, true, ""},
		{domain.TemporaryChatsForbidden, false, false, ""},
		{domain.TemporaryChatsForbidden, true, false, domain.CodeForbidden},
		{domain.TemporaryChatsEnforced, false, true, ""},
		{domain.TemporaryChatsEnforced, true, true, ""},
	}
	for _, c := range cases {
		t.Run(string(c.policy), func(t *testing.T) {
			forEach(t, func(t *testing.T, e *env) {
				retention := 2 * time.Hour
				_, err := e.settings.Update(as(admin), tenantSettingsPatchFor(c.policy, retention), nil)
				require.NoError(t, err)
				before := e.clock.now()
				conv, err := e.eng.CreateConversation(as(alice), chat.CreateConversationInput{Temporary: c.temporary})
				after := e.clock.now()
				if c.code != "" {
					require.Equal(t, c.code, code(err))
					var de *domain.Error
					require.ErrorAs(t, err, &de)
					assert.Equal(t, "temporary", de.Details["field"])
					sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
					assert.Zero(t, e.db.Client.Conversation.Query().CountX(sys), "nothing written")
					return
				}
				require.NoError(t, err)
				assert.Equal(t, c.want, authz.IsTemporary(conv))
				if c.want {
					require.NotNil(t, conv.TemporaryExpiresAt)
					assert.False(t, conv.TemporaryExpiresAt.Before(before.Add(retention).Truncate(time.Microsecond)))
					assert.False(t, conv.TemporaryExpiresAt.After(after.Add(retention)))
				}
			})
		})
	}
}

// TestKeepConversation: keeping makes a temporary chat normal (version
// bumped, listed by the admin list from then on); keeping a normal one is
// a no-op; another user's is NOT_FOUND like an unknown id; a stale
// expectedVersion is CONFLICT; an expired one is NOT_FOUND; under ENFORCED
// keeping is FORBIDDEN.
func TestKeepConversation(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.temporary(t, alice)

		_, err := e.eng.KeepConversation(as(bob), conv.ID)
		assert.Equal(t, domain.CodeNotFound, code(err), "another user's")
		_, unknown := e.eng.KeepConversation(as(bob), uuid.New())
		require.Error(t, unknown)
		assert.Equal(t, unknown.Error(), err.Error(), "indistinguishable from an unknown id")
		_, err = e.eng.KeepConversation(as(admin), conv.ID)
		assert.Equal(t, domain.CodeNotFound, code(err), "owner only, even for admins")
		_, err = e.eng.KeepConversation(as(alice), conv.ID, chat.ExpectVersion(conv.Version+1))
		assert.Equal(t, domain.CodeConflict, code(err))

		kept, err := e.eng.KeepConversation(as(alice), conv.ID, chat.ExpectVersion(conv.Version))
		require.NoError(t, err)
		assert.False(t, authz.IsTemporary(kept))
		assert.Equal(t, conv.Version+1, kept.Version)
		again, err := e.eng.KeepConversation(as(alice), conv.ID)
		require.NoError(t, err)
		assert.Equal(t, kept.Version, again.Version, "keeping a normal conversation is a no-op")
		_, q, err := adminreport.Conversations(as(admin), e.db.Client, adminreport.ConversationFilter{}, e.clock.now())
		require.NoError(t, err)
		assert.True(t, q.Where(conversation.ID(conv.ID)).ExistX(as(admin)), "a kept conversation is listed")

		gone := e.temporary(t, alice)
		e.expire(t, gone.ID)
		_, err = e.eng.KeepConversation(as(alice), gone.ID)
		assert.Equal(t, domain.CodeNotFound, code(err), "an expired one cannot be kept")
	})
	forEach(t, func(t *testing.T, e *env) {
		conv, err := e.eng.CreateConversation(as(alice), chat.CreateConversationInput{})
		require.NoError(t, err)
		require.True(t, authz.IsTemporary(conv), "ENFORCED")
		_, err = e.eng.KeepConversation(as(alice), conv.ID)
		assert.Equal(t, domain.CodeForbidden, code(err))
	}, temporaryChats(domain.TemporaryChatsEnforced))
}

// TestExpiredTemporaryChatIsGone: once a temporary chat's expiry has
// passed, before any purge, it and every row beneath it (messages,
// attempts, sources, feedback, support grants, conversation tags) are
// invisible to its owner, an admin and a support agent with an approved
// grant, through queries and edges, and every engine entry point is
// NOT_FOUND with the error an unknown id gets. The purge then deletes
// every row: a system job finds none in any table.
func TestExpiredTemporaryChatIsGone(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.temporary(t, alice)
		o := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
		_, err := e.feedback.Submit(as(alice), feedbacksvc.Input{AttemptID: o.attempt.ID, Rating: "UP"})
		require.NoError(t, err)
		tag, err := e.db.Client.Tag.Create().SetUserID(alice.UserID).SetName("vpn").Save(as(alice))
		require.NoError(t, err)
		require.NoError(t, e.db.Client.ConversationTag.Create().SetConversationID(conv.ID).SetTagID(tag.ID).SetOwnerID(alice.UserID).Exec(as(alice)))
		g, err := e.support.Request(as(sam), support.RequestInput{ConversationID: conv.ID, Reason: "ticket 1"})
		require.NoError(t, err)
		_, err = e.support.Approve(as(alice), g.ID)
		require.NoError(t, err)
		keep := e.conversation(t, alice)
		e.ask(t, alice, keep.ID, "退款多久到账？")

		counts := func(ctx context.Context) map[string]int {
			c := e.db.Client
			return map[string]int{
				"conversations":     c.Conversation.Query().Where(conversation.ID(conv.ID)).CountX(ctx),
				"messages":          c.Message.Query().Where(message.ConversationID(conv.ID)).CountX(ctx),
				"attempts":          c.Attempt.Query().Where(attempt.ConversationID(conv.ID)).CountX(ctx),
				"sources":           c.Source.Query().Where(source.HasAttemptWith(attempt.ConversationID(conv.ID))).CountX(ctx),
				"feedback":          c.Feedback.Query().Where(feedback.AttemptID(o.attempt.ID)).CountX(ctx),
				"support_grants":    c.SupportGrant.Query().Where(supportgrant.ConversationID(conv.ID)).CountX(ctx),
				"conversation_tags": c.ConversationTag.Query().Where(conversationtag.ConversationID(conv.ID)).CountX(ctx),
			}
		}
		live := counts(as(alice))
		for table, n := range live {
			assert.NotZero(t, n, "%s: visible while it lives", table)
		}

		e.expire(t, conv.ID)
		for _, v := range []*viewer.Viewer{alice, admin, sam} {
			for table, n := range counts(as(v)) {
				if v == sam && (table == "feedback" || table == "conversation_tags") {
					continue // never visible to an agent anyway
				}
				assert.Zero(t, n, "%s: %s of an expired temporary chat", v.UserID, table)
			}
			// Edges from rows that stay visible reach nothing of it.
			tags := e.db.Client.Tag.Query().Where().QueryConversations().CountX(as(v))
			if v == alice {
				assert.Equal(t, 0, tags, "tag → conversations")
			}
		}
		unknown := uuid.New()
		for _, v := range []*viewer.Viewer{alice, admin} {
			_, err := e.eng.Conversation(as(v), conv.ID)
			_, want := e.eng.Conversation(as(v), unknown)
			require.Error(t, err)
			assert.Equal(t, want.Error(), err.Error(), "%s: conversation", v.UserID)
			_, err = e.feed.SubscribeConversation(as(v), conv.ID)
			assert.Equal(t, domain.CodeNotFound, code(err), "%s: conversation stream", v.UserID)
			_, err = e.eng.SubscribeAttempt(as(v), o.attempt.ID, 0)
			assert.Equal(t, domain.CodeNotFound, code(err), "%s: attempt stream", v.UserID)
		}
		_, err = e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: "还在吗？"})
		_, want := e.eng.Ask(as(alice), chat.AskInput{ConversationID: unknown, ClientMessageID: uuid.NewString(), Question: "还在吗？"})
		require.Error(t, err)
		assert.Equal(t, want.Error(), err.Error(), "ask")
		_, err = e.eng.Retry(as(alice), chat.RetryInput{AttemptID: o.attempt.ID, ClientRequestID: "again"})
		assert.Equal(t, domain.CodeNotFound, code(err), "retry")
		_, err = e.eng.RenameConversation(as(alice), conv.ID, "still here?")
		assert.Equal(t, domain.CodeNotFound, code(err), "rename")
		_, err = e.eng.DeleteConversation(as(alice), conv.ID, "")
		assert.Equal(t, domain.CodeNotFound, code(err), "delete")
		_, err = e.eng.RestoreConversation(as(alice), conv.ID)
		assert.Equal(t, domain.CodeNotFound, code(err), "restore")

		n, err := e.eng.PurgeOnce(context.Background())
		require.NoError(t, err)
		assert.GreaterOrEqual(t, n, 1)
		sys := viewer.SystemJobContext(context.Background(), viewer.JobPurge)
		for table, n := range counts(sys) {
			assert.Zero(t, n, "%s: a row is left after the purge", table)
		}
		assert.Equal(t, 2, e.db.Client.Message.Query().Where(message.ConversationID(keep.ID)).CountX(sys), "a normal conversation stays")
		assert.True(t, e.db.Client.Tag.Query().Where().ExistX(sys), "the owner's tag stays")
	})
}

// TestPurgeRemovesExpiredTemporaryChatsByTheEngineClock: the purge deletes
// a temporary chat once the engine's clock passes its expiry, DELETED or
// not, and leaves one that has not expired.
func TestPurgeRemovesExpiredTemporaryChatsByTheEngineClock(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.temporary(t, alice)
		e.ask(t, alice, conv.ID, "上传文件最大是多少？")
		deleted := e.temporary(t, alice)
		_, err := e.eng.DeleteConversation(as(alice), deleted.ID, "")
		require.NoError(t, err)
		n, err := e.eng.PurgeOnce(context.Background())
		require.NoError(t, err)
		assert.Zero(t, n, "nothing has expired")

		e.clock.advance(25 * time.Hour)
		later := e.temporary(t, alice)
		n, err = e.eng.PurgeOnce(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 2, n)
		sys := viewer.SystemJobContext(context.Background(), viewer.JobPurge)
		assert.False(t, e.db.Client.Conversation.Query().Where(conversation.IDIn(conv.ID, deleted.ID)).ExistX(sys))
		assert.Zero(t, e.db.Client.Message.Query().Where(message.ConversationID(conv.ID)).CountX(sys))
		assert.True(t, e.db.Client.Conversation.Query().Where(conversation.ID(later.ID)).ExistX(sys), "not expired yet")
	})
}

// TestTemporaryChatsAreNeverListed: the admin list leaves temporary chats
// out, with or without a status filter, DELETED ones included.
func TestTemporaryChatsAreNeverListed(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		normal := e.conversation(t, alice)
		temp := e.temporary(t, alice)
		deleted := e.temporary(t, alice)
		_, err := e.eng.DeleteConversation(as(alice), deleted.ID, "")
		require.NoError(t, err)
		for _, s := range []*conversation.Status{nil, ptr(conversation.StatusACTIVE), ptr(conversation.StatusDELETED)} {
			ctx, q, err := adminreport.Conversations(as(admin), e.db.Client, adminreport.ConversationFilter{Status: s}, e.clock.now())
			require.NoError(t, err)
			ids := q.IDsX(ctx)
			assert.NotContains(t, ids, temp.ID)
			assert.NotContains(t, ids, deleted.ID)
			if s == nil || *s == conversation.StatusACTIVE {
				assert.Contains(t, ids, normal.ID)
			}
		}
		// The owner still reads it by id.
		_, err = e.eng.Conversation(as(alice), temp.ID)
		require.NoError(t, err)
	})
}

// TestTemporaryChatStaysOffTheViewerFeed: creating, asking in and renaming
// a temporary chat publishes nothing to its owner's feed (another device
// must not learn of it) while its conversation stream hears everything;
// keeping it announces it as created, and from then on it is followed.
func TestTemporaryChatStaysOffTheViewerFeed(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx, cancel := context.WithCancel(as(alice))
		defer cancel()
		viewerEvents, err := e.feed.SubscribeViewer(ctx)
		require.NoError(t, err)
		conv := e.temporary(t, alice)
		events, err := e.feed.SubscribeConversation(ctx, conv.ID)
		require.NoError(t, err)
		e.ask(t, alice, conv.ID, "上传文件最大是多少？")
		chat.WaitIdle(e.eng)
		_, err = e.eng.RenameConversation(as(alice), conv.ID, "Uploads")
		require.NoError(t, err)
		_, err = e.eng.KeepConversation(as(alice), conv.ID)
		require.NoError(t, err)
		_, err = e.eng.RenameConversation(as(alice), conv.ID, "Kept")
		require.NoError(t, err)

		want := []feed.ViewerEventKind{feed.ViewerConversationCreated, feed.ViewerConversationUpdated}
		for i, k := range want {
			ev := nextFeed(t, viewerEvents)
			assert.Equal(t, k, ev.Kind, "feed event %d", i)
			assert.Equal(t, conv.ID, ev.ConversationID)
		}
		var kinds []feed.ConversationEventKind
		for len(kinds) < 3 {
			select {
			case ev := <-events:
				kinds = append(kinds, ev.Kind)
			case <-time.After(20 * time.Second):
				t.Fatal("no conversation event")
			}
		}
		assert.Contains(t, kinds, feed.ConversationMessageCreated, "the conversation stream hears the ask")
	})
}

// TestTemporaryChatGetsNoStoredSummary: with the LLM summariser and a fold
// due after every round, a normal conversation gets a stored summary and a
// generated title; a temporary chat gets neither, and its model calls are
// the answers alone.
func TestTemporaryChatGetsNoStoredSummary(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		normal := e.conversation(t, alice)
		temp := e.temporary(t, alice)
		for i := range 6 {
			q := []string{"上传文件最大是多少？", "退款多久到账？", "什么是RAG？"}[i%3]
			e.ask(t, alice, normal.ID, q)
			chat.WaitIdle(e.eng)
			e.ask(t, alice, temp.ID, q)
			chat.WaitIdle(e.eng)
		}
		chat.WaitIdle(e.eng)
		sys := viewer.SystemJobContext(context.Background(), viewer.JobPurge)
		n := e.db.Client.Conversation.GetX(sys, normal.ID)
		tc := e.db.Client.Conversation.GetX(sys, temp.ID)
		assert.NotEmpty(t, n.Summary, "the normal conversation is summarised")
		assert.Empty(t, tc.Summary, "no stored summary")
		assert.Zero(t, tc.SummaryVersion)
		assert.Equal(t, conversation.TitleSourceQUESTION, tc.TitleSource, "no generated title")
	}, summaryEvery(domain.StrategyHybrid, domain.SummarizerLLM, 2), func(c *chat.Config, _ *domain.TenantSettings) {
		c.GenerateTitles = true
	})
}

// TestExpiryEndsTheRunningAnswerAndStreams: a temporary chat whose expiry
// passes while an answer runs ends like a deleted one: the run is
// cancelled (the attempt stream ends FAILED(CANCELLED)) and the
// conversation stream ends with CONVERSATION_DELETED. The engine's timers
// fire at the expiry by its clock, set here to a few seconds before it.
func TestExpiryEndsTheRunningAnswerAndStreams(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.temporary(t, alice)
		e.clock.advance(conv.TemporaryExpiresAt.Sub(e.clock.now()) - 3*time.Second)
		e.model.hold()
		defer e.model.release()
		res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: "上传文件最大是多少？"})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(as(alice), 30*time.Second) // a hang guard only
		defer cancel()
		attemptEvents, err := e.eng.SubscribeAttempt(ctx, res.Attempt.ID, 0)
		require.NoError(t, err)
		convEvents, err := e.feed.SubscribeConversation(ctx, conv.ID)
		require.NoError(t, err)

		var last chat.AttemptEvent
		for ev := range attemptEvents {
			last = ev
		}
		require.NoError(t, ctx.Err(), "the attempt stream ended by itself")
		assert.Equal(t, chat.EventFailed, last.Kind)
		assert.Equal(t, domain.FailureCancelled, last.FailureCode)
		var kinds []feed.ConversationEventKind
		for ev := range convEvents {
			kinds = append(kinds, ev.Kind)
		}
		require.NoError(t, ctx.Err(), "the conversation stream ended by itself")
		require.NotEmpty(t, kinds)
		assert.Equal(t, feed.ConversationDeleted, kinds[len(kinds)-1])
	})
}

// TestPurgeEndsTheRunningAnswerAndStreams: the purge pass ends a running
// answer and the open streams of an expired temporary chat before deleting
// its rows, as a deletion does.
func TestPurgeEndsTheRunningAnswerAndStreams(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.temporary(t, alice)
		e.model.hold()
		defer e.model.release()
		res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: "上传文件最大是多少？"})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(as(alice), 30*time.Second) // a hang guard only
		defer cancel()
		attemptEvents, err := e.eng.SubscribeAttempt(ctx, res.Attempt.ID, 0)
		require.NoError(t, err)
		convEvents, err := e.feed.SubscribeConversation(ctx, conv.ID)
		require.NoError(t, err)

		e.clock.advance(25 * time.Hour)
		_, err = e.eng.PurgeOnce(context.Background())
		require.NoError(t, err)

		var last chat.AttemptEvent
		for ev := range attemptEvents {
			last = ev
		}
		require.NoError(t, ctx.Err(), "the attempt stream ended by itself")
		assert.Equal(t, chat.EventFailed, last.Kind)
		assert.Equal(t, domain.FailureCancelled, last.FailureCode)
		var kinds []feed.ConversationEventKind
		for ev := range convEvents {
			kinds = append(kinds, ev.Kind)
		}
		require.NoError(t, ctx.Err(), "the conversation stream ended by itself")
		require.NotEmpty(t, kinds)
		assert.Equal(t, feed.ConversationDeleted, kinds[len(kinds)-1])
		sys := viewer.SystemJobContext(context.Background(), viewer.JobPurge)
		assert.False(t, e.db.Client.Attempt.Query().Where(attempt.ID(res.Attempt.ID)).ExistX(sys))
	})
}

// tenantSettingsPatchFor sets the temporary chat policy and retention.
func tenantSettingsPatchFor(p domain.TemporaryChats, retention time.Duration) tenantsettings.Patch {
	return tenantsettings.Patch{TemporaryChats: &p, TemporaryChatRetention: &retention}
}
