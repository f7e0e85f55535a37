package sharing_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/sharelink"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/ent/supportgrant"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/sharing"
	"github.com/ragchat/ragchat/internal/viewer"
)

// sam is a support agent of alice's tenant.
var sam = &viewer.Viewer{TenantID: demo.TenantID, UserID: "sam", Roles: []viewer.Role{viewer.RoleSupport}}

// scopeWorld is the world plus what a share scope must not reach: bob's
// conversation (which an approved grant opens to sam), eve's conversation
// in the other tenant, and alice's temporary chat with a link made
// through Ent directly (the service refuses one).
type scopeWorld struct {
	*world
	link                   *ent.ShareLink
	token                  string
	bobConv, eveConv, tmp  uuid.UUID
	bobMsg, eveMsg, tmpMsg uuid.UUID
	tmpLink                *ent.ShareLink
	expiring               *ent.ShareLink
	revoked                *ent.ShareLink
}

// reader is the share reader scope of l at the world's now.
func (w *world) reader(l *ent.ShareLink, at time.Time) viewer.ShareReader {
	return viewer.ShareReader{TenantID: l.TenantID, LinkID: l.ID, ConversationID: l.ConversationID,
		PathMessageIDs: l.PathMessageIds, At: at}
}

// conversationOf makes a conversation of v with one question.
func (w *world) conversationOf(t *testing.T, v *viewer.Viewer, temporary bool) (conv, msg uuid.UUID) {
	t.Helper()
	c := w.db.Client
	ctx := as(v)
	kb := w.conv.KnowledgeBaseID
	if v.TenantID != demo.TenantID {
		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		kb = c.KnowledgeBase.Create().SetTenantID(v.TenantID).SetName("kb").
			SetEmbeddingModel("offline-hash-1024").SetEmbeddingDimensions(1024).SaveX(sys).ID
	}
	now := time.Now()
	cc := c.Conversation.Create().SetUserID(v.UserID).SetKnowledgeBaseID(kb).SetTitle(v.UserID + "'s secret").
		SetExpiresAt(now.Add(24 * time.Hour)).SetAbsoluteExpiresAt(now.Add(30 * 24 * time.Hour))
	if temporary {
		cc.SetTemporaryExpiresAt(now.Add(time.Hour))
	}
	created := cc.SaveX(ctx)
	m := c.Message.Create().SetConversationID(created.ID).SetOwnerID(v.UserID).SetSequenceNo(1).
		SetDepth(0).SetRole(message.RoleUSER).SetContent("secret question").SaveX(ctx)
	return created.ID, m.ID
}

func newScopeWorld(t *testing.T, w *world) *scopeWorld {
	s := &scopeWorld{world: w}
	s.link, s.token = w.share(t, w.a1, sharing.CreateInput{})
	s.bobConv, s.bobMsg = w.conversationOf(t, bob, false)
	s.eveConv, s.eveMsg = w.conversationOf(t, eve, false)
	s.tmp, s.tmpMsg = w.conversationOf(t, alice, true)
	s.tmpLink = w.db.Client.ShareLink.Create().SetOwnerID("alice").SetConversationID(s.tmp).
		SetUpToMessageID(s.tmpMsg).SetPathMessageIds([]uuid.UUID{s.tmpMsg}).SetAudience(sharelink.AudienceTENANT).
		SetTokenHash(hex.EncodeToString(make([]byte, 32))).SaveX(as(alice))
	at := w.clock.now().Add(time.Hour)
	s.expiring, _ = w.share(t, w.a1, sharing.CreateInput{ExpiresAt: &at})
	s.revoked, _ = w.share(t, w.a1, sharing.CreateInput{})
	_, err := w.svc.Revoke(as(alice), s.revoked.ID)
	require.NoError(t, err)
	// An approved grant opens bob's conversation to sam.
	sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	w.db.Client.SupportGrant.Create().SetTenantID(demo.TenantID).SetConversationID(s.bobConv).SetAgentID("sam").
		SetConversationOwnerID("bob").SetReason("ticket 1").SetStatus(supportgrant.StatusAPPROVED).
		SetDurationSeconds(3600).SetExpiresAt(time.Now().Add(time.Hour)).ExecX(sys)
	return s
}

// counts are the rows of the tables a reader scope reaches.
type counts struct{ conversations, messages, sources int }

// count returns what ctx sees of conversations, messages and sources,
// narrowed to the conversations convs, the messages msgs and the sources
// of the attempts atts (nil: every row the scope reaches).
func (w *world) count(t *testing.T, ctx context.Context, convs, msgs, atts []uuid.UUID) counts {
	t.Helper()
	c := w.db.Client
	cq, mq, sq := c.Conversation.Query(), c.Message.Query(), c.Source.Query()
	if convs != nil {
		cq.Where(conversation.IDIn(convs...))
		mq.Where(message.ConversationIDIn(convs...))
	}
	if msgs != nil {
		mq.Where(message.IDIn(msgs...))
	}
	if atts != nil {
		sq.Where(source.AttemptIDIn(atts...))
	}
	var n counts
	var err error
	n.conversations, err = cq.Count(ctx)
	require.NoError(t, err)
	n.messages, err = mq.Count(ctx)
	require.NoError(t, err)
	n.sources, err = sq.Count(ctx)
	require.NoError(t, err)
	return n
}

// TestReaderScopeReachesOnlyItsLink: a share reader's scope reads its
// link's conversation, the path's messages and their sources, and
// nothing outside them: not another conversation of the tenant or of
// another tenant, not a message off the path, not a temporary chat, not
// a deleted conversation, not through a revoked or expired link; an
// admin or a support agent's grant in the parent context widens nothing.
func TestReaderScopeReachesOnlyItsLink(t *testing.T) {
	forEach(t, func(t *testing.T, w *world) {
		s := newScopeWorld(t, w)
		now := w.clock.now()
		scope := func(parent context.Context, r viewer.ShareReader) context.Context {
			return viewer.NewShareContext(parent, r)
		}
		// Controls: the parents do see what the scope must not.
		require.Equal(t, counts{1, 1, 0}, w.count(t, as(sam), []uuid.UUID{s.bobConv}, nil, nil))
		require.Equal(t, counts{1, 1, 1}, w.count(t, as(carol), []uuid.UUID{s.bobConv}, nil, []uuid.UUID{w.att2}))

		mine := w.reader(s.link, now)
		cases := []struct {
			name              string
			ctx               context.Context
			convs, msgs, atts []uuid.UUID
			want              counts
		}{
			{"its link: the path (q1, a1) and a1's two sources", scope(anon, mine), nil, nil, nil, counts{1, 2, 2}},
			{"another conversation of the tenant", scope(anon, mine), []uuid.UUID{s.bobConv}, nil, []uuid.UUID{w.att2}, counts{}},
			{"another tenant's conversation", scope(anon, mine), []uuid.UUID{s.eveConv}, nil, []uuid.UUID{w.att2}, counts{}},
			{"messages off the path and their sources", scope(anon, mine), nil, []uuid.UUID{w.q2, w.a2, w.q2b}, []uuid.UUID{w.att2}, counts{1, 0, 0}},
			{"a path that names another conversation's message", scope(anon, func() viewer.ShareReader {
				r := mine
				r.PathMessageIDs = append(append([]uuid.UUID{}, r.PathMessageIDs...), s.bobMsg, s.eveMsg)
				return r
			}()), nil, []uuid.UUID{s.bobMsg, s.eveMsg}, nil, counts{1, 0, 2}},
			{"a scope naming another conversation", scope(anon, func() viewer.ShareReader {
				r := mine
				r.ConversationID, r.PathMessageIDs = s.bobConv, []uuid.UUID{s.bobMsg}
				return r
			}()), nil, nil, nil, counts{}},
			{"a scope naming another tenant", scope(anon, func() viewer.ShareReader {
				r := mine
				r.TenantID = "other"
				return r
			}()), nil, nil, nil, counts{}},
			{"a temporary chat's link", scope(anon, w.reader(s.tmpLink, now)), nil, nil, nil, counts{}},
			{"a revoked link", scope(anon, w.reader(s.revoked, now)), nil, nil, nil, counts{}},
			{"an expired link", scope(anon, w.reader(s.expiring, now.Add(2*time.Hour))), nil, nil, nil, counts{}},
			{"the expiring link before its expiry", scope(anon, w.reader(s.expiring, now)), nil, nil, nil, counts{1, 2, 2}},
			{"an admin parent", scope(as(carol), mine), []uuid.UUID{s.bobConv}, nil, []uuid.UUID{w.att2}, counts{}},
			{"a support agent's grant", scope(as(sam), mine), []uuid.UUID{s.bobConv}, nil, []uuid.UUID{w.att2}, counts{}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				require.Equal(t, c.want, w.count(t, c.ctx, c.convs, c.msgs, c.atts))
			})
		}
		require.Nil(t, viewer.FromContext(scope(as(carol), mine)), "a scope carries no viewer")

		// A deleted conversation: nothing, from the next query on.
		require.NoError(t, w.db.Client.Conversation.UpdateOneID(w.conv.ID).SetStatus(conversation.StatusDELETED).
			SetDeletedAt(time.Now()).Exec(as(alice)))
		require.Equal(t, counts{}, w.count(t, scope(anon, mine), nil, nil, nil))
	})
}

// TestReaderScopeWritesOnlyItsReadCount: the one write of a reader's
// scope adds one read to its own link; any other write, of the link or of
// any other row, is denied, and the count of another link matches no row.
func TestReaderScopeWritesOnlyItsReadCount(t *testing.T) {
	forEach(t, func(t *testing.T, w *world) {
		s := newScopeWorld(t, w)
		c := w.db.Client
		ctx := viewer.NewShareContext(as(carol), w.reader(s.link, w.clock.now()))
		now := time.Now()

		n, err := c.ShareLink.Update().Where(sharelink.ID(s.link.ID)).AddReadCount(1).SetLastReadAt(now).Save(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		n, err = c.ShareLink.Update().Where(sharelink.ID(s.expiring.ID)).AddReadCount(1).SetLastReadAt(now).Save(ctx)
		require.NoError(t, err)
		require.Equal(t, 0, n, "another link's count")

		for name, write := range map[string]func() error{
			"read count by 5": func() error {
				return c.ShareLink.Update().Where(sharelink.ID(s.link.ID)).AddReadCount(5).SetLastReadAt(now).Exec(ctx)
			},
			"read count without last read": func() error {
				return c.ShareLink.Update().Where(sharelink.ID(s.link.ID)).AddReadCount(1).Exec(ctx)
			},
			"revoke the link": func() error {
				return c.ShareLink.UpdateOneID(s.link.ID).SetRevokedAt(now).Exec(ctx)
			},
			"widen the audience": func() error {
				return c.ShareLink.UpdateOneID(s.link.ID).SetAudience(sharelink.AudiencePUBLIC).AddReadCount(1).SetLastReadAt(now).Exec(ctx)
			},
			"delete the link": func() error { return c.ShareLink.DeleteOneID(s.link.ID).Exec(ctx) },
			"create a link": func() error {
				return c.ShareLink.Create().SetOwnerID("alice").SetConversationID(w.conv.ID).SetUpToMessageID(w.a1).
					SetPathMessageIds([]uuid.UUID{w.q1}).SetAudience(sharelink.AudiencePUBLIC).
					SetTokenHash(hex.EncodeToString(make([]byte, 31)) + "ff").Exec(ctx)
			},
			"rename the conversation": func() error {
				return c.Conversation.UpdateOneID(w.conv.ID).SetTitle("hijacked").Exec(ctx)
			},
			"delete a message": func() error { return c.Message.DeleteOneID(w.a1).Exec(ctx) },
			"write the tenant": func() error {
				return c.Tenant.UpdateOneID(demo.TenantID).SetName("hijacked").Exec(ctx)
			},
		} {
			require.Error(t, write(), name)
		}
		l := c.ShareLink.GetX(as(alice), s.link.ID)
		require.Equal(t, int64(1), l.ReadCount)
		require.Nil(t, l.RevokedAt)
		require.Equal(t, sharelink.AudienceTENANT, l.Audience)
		require.Equal(t, "Upload limits", c.Conversation.GetX(as(alice), w.conv.ID).Title)
	})
}

// TestShareScopesReadNothingElse: every share scope is denied the tables
// it does not reach, and the lookup reaches only its token's open link and
// that link's tenant row.
func TestShareScopesReadNothingElse(t *testing.T) {
	forEach(t, func(t *testing.T, w *world) {
		s := newScopeWorld(t, w)
		c := w.db.Client
		hash := func(token string) string { sum := sha256.Sum256([]byte(token)); return hex.EncodeToString(sum[:]) }
		now := w.clock.now()
		lookup := viewer.NewShareContext(as(carol), viewer.ShareLookup{TokenHash: hash(s.token), At: now})
		reader := viewer.NewShareContext(as(carol), w.reader(s.link, now))
		audience := viewer.NewShareContext(as(carol), viewer.ShareAudience{TenantID: demo.TenantID, ConversationID: w.conv.ID})

		ids, err := c.ShareLink.Query().IDs(lookup)
		require.NoError(t, err)
		require.Equal(t, []uuid.UUID{s.link.ID}, ids, "the lookup reaches its token's link only")
		tenants, err := c.Tenant.Query().IDs(lookup)
		require.NoError(t, err)
		require.Equal(t, []string{demo.TenantID}, tenants)
		for name, at := range map[string]viewer.ShareLookup{
			"unknown token":  {TokenHash: hash("unknown"), At: now},
			"revoked link":   {TokenHash: s.revoked.TokenHash, At: now},
			"temporary chat": {TokenHash: s.tmpLink.TokenHash, At: now},
			"after expiry":   {TokenHash: s.expiring.TokenHash, At: now.Add(2 * time.Hour)},
		} {
			ctx := viewer.NewShareContext(anon, at)
			n, err := c.ShareLink.Query().Count(ctx)
			require.NoError(t, err, name)
			require.Zero(t, n, name)
			n, err = c.Tenant.Query().Count(ctx)
			require.NoError(t, err, name)
			require.Zero(t, n, name)
		}

		// The documents a scope reads: none for a member-less reader
		// without TenantDocuments; the audience's cited, open ones.
		docs, err := c.Document.Query().IDs(reader)
		require.NoError(t, err)
		require.Empty(t, docs)
		docs, err = c.Document.Query().IDs(audience)
		require.NoError(t, err)
		require.Equal(t, []uuid.UUID{w.publicDoc}, docs)
		docs, err = c.Document.Query().IDs(viewer.NewShareContext(anon,
			viewer.ShareAudience{TenantID: demo.TenantID, ConversationID: w.conv.ID, Users: []string{"bob", "dave"}}))
		require.NoError(t, err)
		require.Equal(t, []uuid.UUID{w.publicDoc}, docs, "a grant to a group does not count")

		denied := map[string]func(ctx context.Context) error{
			"knowledge bases": func(ctx context.Context) error { _, err := c.KnowledgeBase.Query().All(ctx); return err },
			"audit events":    func(ctx context.Context) error { _, err := c.AuditEvent.Query().All(ctx); return err },
			"support grants":  func(ctx context.Context) error { _, err := c.SupportGrant.Query().All(ctx); return err },
			"attempts":        func(ctx context.Context) error { _, err := c.Attempt.Query().All(ctx); return err },
			"attachments":     func(ctx context.Context) error { _, err := c.Attachment.Query().All(ctx); return err },
			"feedback":        func(ctx context.Context) error { _, err := c.Feedback.Query().All(ctx); return err },
		}
		for scopeName, ctx := range map[string]context.Context{"lookup": lookup, "reader": reader, "audience": audience} {
			for name, read := range denied {
				require.Error(t, read(ctx), scopeName+"/"+name)
			}
		}
		for name, read := range map[string]func() error{
			"lookup/conversations": func() error { _, err := c.Conversation.Query().All(lookup); return err },
			"lookup/messages":      func() error { _, err := c.Message.Query().All(lookup); return err },
			"reader/share links":   func() error { _, err := c.ShareLink.Query().All(reader); return err },
			"reader/tenants":       func() error { _, err := c.Tenant.Query().All(reader); return err },
			"audience/conversations": func() error {
				_, err := c.Conversation.Query().All(audience)
				return err
			},
			"audience/share links": func() error { _, err := c.ShareLink.Query().All(audience); return err },
			"audience/chunks":      func() error { _, err := c.Chunk.Query().All(audience); return err },
		} {
			require.Error(t, read(), name)
		}
	})
}
