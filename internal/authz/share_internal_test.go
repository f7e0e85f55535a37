package authz

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	gen "github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/ent/sharelink"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/ent/tenant"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestShareScopesReachOnlyTheirTables: each share scope reaches its own
// few tables and no other table of the visibility model, whatever the
// flags of the scope.
func TestShareScopesReachOnlyTheirTables(t *testing.T) {
	t.Parallel()
	tables := []string{tenant.Table}
	for table := range scopes {
		tables = append(tables, table)
	}
	reader := viewer.ShareReader{TenantID: "t", LinkID: uuid.New(), ConversationID: uuid.New(), PathMessageIDs: []uuid.UUID{uuid.New()}}
	open := reader
	open.TenantDocuments = true
	for _, c := range []struct {
		name  string
		scope viewer.ShareScope
		reach []string
	}{
		{"lookup", viewer.ShareLookup{TokenHash: "h"}, []string{sharelink.Table, tenant.Table}},
		{"reader", reader, []string{conversation.Table, message.Table, source.Table, document.Table, chunk.Table}},
		{"reader with the tenant's documents", open, []string{conversation.Table, message.Table, source.Table, document.Table, chunk.Table}},
		{"audience", viewer.ShareAudience{TenantID: "t", ConversationID: uuid.New()}, []string{document.Table}},
		{"audience of users", viewer.ShareAudience{TenantID: "t", ConversationID: uuid.New(), Users: []string{"u"}}, []string{document.Table}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, table := range tables {
				if got := shareRows(c.scope, table) != nil; got != slices.Contains(c.reach, table) {
					t.Errorf("%s: reaches %s = %v", c.name, table, got)
				}
			}
		})
	}
}

// TestDecideShareScopeMutations: a share scope writes nothing but one
// read of its reader's link; any other context is left to later rules.
func TestDecideShareScopeMutations(t *testing.T) {
	t.Parallel()
	c := gen.NewClient()
	now := time.Now()
	r := viewer.ShareReader{TenantID: "t", LinkID: uuid.New(), ConversationID: uuid.New(), At: now}
	reader := viewer.NewShareContext(context.Background(), r)
	lookup := viewer.NewShareContext(context.Background(), viewer.ShareLookup{TokenHash: "h", At: now})
	member := viewer.NewContext(context.Background(), &viewer.Viewer{TenantID: "t", UserID: "u", Roles: []viewer.Role{viewer.RoleAdmin}})
	for _, m := range []struct {
		name     string
		ctx      context.Context
		mutation func() gen.Mutation
		want     error
	}{
		{"one read", reader, func() gen.Mutation {
			return c.ShareLink.Update().AddReadCount(1).SetLastReadAt(now).Mutation()
		}, privacy.Allow},
		{"one read, one link", reader, func() gen.Mutation {
			return c.ShareLink.UpdateOneID(r.LinkID).AddReadCount(1).SetLastReadAt(now).Mutation()
		}, privacy.Allow},
		{"one read by the lookup", lookup, func() gen.Mutation {
			return c.ShareLink.Update().AddReadCount(1).SetLastReadAt(now).Mutation()
		}, privacy.Deny},
		{"two reads", reader, func() gen.Mutation {
			return c.ShareLink.Update().AddReadCount(2).SetLastReadAt(now).Mutation()
		}, privacy.Deny},
		{"a read without its time", reader, func() gen.Mutation {
			return c.ShareLink.Update().AddReadCount(1).Mutation()
		}, privacy.Deny},
		{"a read that also revokes", reader, func() gen.Mutation {
			return c.ShareLink.Update().AddReadCount(1).SetLastReadAt(now).SetRevokedAt(now).Mutation()
		}, privacy.Deny},
		{"a read that clears the expiry", reader, func() gen.Mutation {
			return c.ShareLink.Update().AddReadCount(1).SetLastReadAt(now).ClearExpiresAt().Mutation()
		}, privacy.Deny},
		{"a create", reader, func() gen.Mutation { return c.ShareLink.Create().Mutation() }, privacy.Deny},
		{"another table", reader, func() gen.Mutation { return c.Conversation.Update().SetTitle("x").Mutation() }, privacy.Deny},
		{"a viewer", member, func() gen.Mutation { return c.Conversation.Update().SetTitle("x").Mutation() }, privacy.Skip},
	} {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			if got := DecideShareScope().EvalMutation(m.ctx, m.mutation()); !errors.Is(got, m.want) {
				t.Errorf("got %v, want %v", got, m.want)
			}
		})
	}
}
