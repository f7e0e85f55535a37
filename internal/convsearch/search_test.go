package convsearch_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/convsearch"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

var (
	alice = &viewer.Viewer{TenantID: "acme", UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}}
	bob   = &viewer.Viewer{TenantID: "acme", UserID: "bob", Roles: []viewer.Role{viewer.RoleMember}}
	carol = &viewer.Viewer{TenantID: "acme", UserID: "carol", Roles: []viewer.Role{viewer.RoleAdmin}}
	dave  = &viewer.Viewer{TenantID: "globex", UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}}
)

func as(v *viewer.Viewer) context.Context { return viewer.NewContext(context.Background(), v) }

// texts are the fixture messages; each is written in a conversation of
// its own for alice, and again for bob, for alice of another tenant, in a
// DELETED and in a temporary conversation of alice, none of which she may
// find.
var texts = []string{
	"我喜欢猫和狗",
	"讨论了部署方案",
	"upload failed with ERR_FILE_TOO_LARGE",
	"我的VPN设备连不上",
	"the vpn is down again",
}

// fixture seeds the conversations and returns alice's, by text index.
func fixture(t *testing.T, c *ent.Client) []uuid.UUID {
	t.Helper()
	sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	for _, id := range []string{"acme", "globex"} {
		c.Tenant.Create().SetID(id).SetName(id).SaveX(sys)
	}
	kbs := map[string]uuid.UUID{}
	for _, v := range []*viewer.Viewer{carol, {TenantID: "globex", UserID: "erin", Roles: []viewer.Role{viewer.RoleAdmin}}} {
		kbs[v.TenantID] = c.KnowledgeBase.Create().SetName("kb").SetEmbeddingModel("m").SetEmbeddingDimensions(1024).SaveX(as(v)).ID
	}
	now := time.Now()
	write := func(v *viewer.Viewer, title, text string, mod func(*ent.ConversationCreate)) uuid.UUID {
		cc := c.Conversation.Create().SetUserID(v.UserID).SetKnowledgeBaseID(kbs[v.TenantID]).SetTitle(title).
			SetExpiresAt(now.Add(time.Hour)).SetAbsoluteExpiresAt(now.Add(24 * time.Hour))
		if mod != nil {
			mod(cc)
		}
		conv := cc.SaveX(as(v))
		c.Message.Create().SetConversationID(conv.ID).SetOwnerID(v.UserID).SetSequenceNo(1).
			SetRole(message.RoleUSER).SetContent(text).SaveX(as(v))
		return conv.ID
	}
	var own []uuid.UUID
	for i, text := range texts {
		own = append(own, write(alice, "chat "+string(rune('a'+i)), text, nil))
		write(bob, "chat", text, nil)
		write(dave, "chat", text, nil)
		write(alice, "chat", text, func(cc *ent.ConversationCreate) {
			cc.SetStatus(conversation.StatusDELETED).SetDeletedAt(now)
		})
		write(alice, "chat", text, func(cc *ent.ConversationCreate) { cc.SetTemporaryExpiresAt(now.Add(time.Hour)) })
	}
	return own
}

// hitIDs runs a search and returns the conversations hit, sorted.
func hitIDs(t *testing.T, ctx context.Context, c *ent.Client, r convsearch.Request, admin bool) []uuid.UUID {
	t.Helper()
	search := convsearch.Search
	if admin {
		search = convsearch.AdminSearch
	}
	p, err := search(ctx, c, r)
	require.NoError(t, err)
	var ids []uuid.UUID
	for _, h := range p.Hits {
		ids = append(ids, h.Conversation.ID)
	}
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	return ids
}

// TestFixtures runs the fixtures on both backends: each query
// finds exactly alice's own conversations, never bob's, another tenant's,
// a DELETED or a temporary one.
func TestFixtures(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		own := fixture(t, db.Client)
		ids := func(i ...int) []uuid.UUID {
			var out []uuid.UUID
			for _, k := range i {
				out = append(out, own[k])
			}
			slices.SortFunc(out, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
			return out
		}
		for _, tc := range []struct {
			query string
			want  []uuid.UUID
		}{
			{"猫", ids(0)},
			{"部署", ids(1)},
			{"err_file_too_large", ids(2)},
			{"vpn 设备", ids(3)},
			{"vpn", ids(3, 4)},
			{"chat", ids(0, 1, 2, 3, 4)},
			{"chat c", ids(2)},
			{"猫狗", nil},
		} {
			t.Run(tc.query, func(t *testing.T) {
				require.Equal(t, tc.want, hitIDs(t, as(alice), db.Client, convsearch.Request{Query: tc.query}, false))
			})
		}
		// An admin's search over the tenant finds alice's and bob's.
		require.Len(t, hitIDs(t, as(carol), db.Client, convsearch.Request{Query: "猫"}, true), 2)
		u := "alice"
		require.Equal(t, ids(0), hitIDs(t, as(carol), db.Client, convsearch.Request{Query: "猫", UserID: &u}, true))
		_, err := convsearch.AdminSearch(as(alice), db.Client, convsearch.Request{Query: "猫"})
		require.Error(t, err)

		// A retitled conversation is found by its new title, not the old.
		db.Client.Conversation.UpdateOneID(own[0]).SetTitle("新的标题 renamed").ExecX(as(alice))
		require.Equal(t, ids(0), hitIDs(t, as(alice), db.Client, convsearch.Request{Query: "标题"}, false))
		require.Equal(t, ids(1, 2, 3, 4), hitIDs(t, as(alice), db.Client, convsearch.Request{Query: "chat"}, false))

		// A purged conversation leaves the index.
		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		db.Client.Message.Delete().Where(message.ConversationID(own[1])).ExecX(sys)
		db.Client.Conversation.DeleteOneID(own[1]).ExecX(sys)
		require.Empty(t, hitIDs(t, as(alice), db.Client, convsearch.Request{Query: "部署"}, false))
	})
}

// TestPaging pages one hit at a time with the cursors: every conversation
// once, in the order of one page of all.
func TestPaging(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		fixture(t, db.Client)
		all, err := convsearch.Search(as(alice), db.Client, convsearch.Request{Query: "chat"})
		require.NoError(t, err)
		require.Equal(t, 5, all.TotalCount)
		one := 2
		var after *string
		var got []uuid.UUID
		for {
			p, err := convsearch.Search(as(alice), db.Client, convsearch.Request{Query: "chat", First: &one, After: after})
			require.NoError(t, err)
			for _, h := range p.Hits {
				got = append(got, h.Conversation.ID)
			}
			if !p.HasNext {
				break
			}
			after = &p.EndCursor
		}
		var want []uuid.UUID
		for _, h := range all.Hits {
			want = append(want, h.Conversation.ID)
		}
		require.Equal(t, want, got)
	})
}

// TestBadInput covers the typed errors of a search.
func TestBadInput(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		big := 101
		long := make([]rune, convsearch.MaxQueryChars+1)
		for i := range long {
			long[i] = 'a'
		}
		bad := "!!"
		for _, tc := range []struct {
			name  string
			r     convsearch.Request
			field string
		}{
			{"empty", convsearch.Request{Query: "  "}, "query"},
			{"punctuation", convsearch.Request{Query: "?!"}, "query"},
			{"long", convsearch.Request{Query: string(long)}, "query"},
			{"first", convsearch.Request{Query: "a", First: &big}, "first"},
			{"cursor", convsearch.Request{Query: "a", After: &bad}, "after"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := convsearch.Search(as(alice), db.Client, tc.r)
				require.Equal(t, domain.CodeBadUserInput, domain.ErrorCode(err))
				require.Equal(t, tc.field, domain.ErrorDetails(err)["field"])
			})
		}
	})
}

// TestSnippet marks the match in UTF-16 units.
func TestSnippet(t *testing.T) {
	s := convsearch.MakeSnippet("😀 我的VPN设备", []string{"vpn"})
	require.Equal(t, []convsearch.Range{{Start: 5, End: 8}}, s.Highlights)
}
