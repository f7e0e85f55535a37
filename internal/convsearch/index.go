package convsearch

import (
	"context"
	"errors"

	"entgo.io/ent/dialect"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/hook"
	"github.com/ragchat/ragchat/internal/textsearch"
	"github.com/ragchat/ragchat/internal/viewer"
)

// OwnerTerm is the term every indexed row carries for its owner, so that
// the index lookup itself is scoped to one user of one tenant. Query text
// never produces it: Query splits at ':'.
func OwnerTerm(tenantID, userID string) string { return "u:" + tenantID + ":" + userID }

// Encode returns the stored form of text's terms plus the owner's term for
// the given dialect: a tsvector's text on PostgreSQL, FTS5 column text on
// SQLite.
func Encode(dialectName, tenantID, userID, text string) textsearch.Indexed {
	tokens := append(textsearch.Tokens(text), OwnerTerm(tenantID, userID))
	if dialectName == dialect.Postgres {
		return textsearch.Indexed(textsearch.TSVector(tokens))
	}
	return textsearch.Indexed(textsearch.FTS5Document(tokens))
}

// ErrBulkTitle reports a title set by a bulk update whose rows have
// different owners; their tokens could not carry one owner's term.
var ErrBulkTitle = errors.New("convsearch: a bulk title update spans conversations of several owners")

// Install adds the hooks that set search_tokens to c: on every message
// created (message content is immutable) and every conversation created
// or retitled. The store calls it once where it opens the client. The
// hooks run before the privacy policy, so the tenant is taken from the
// mutation or, when the policy will set it, from the viewer.
func Install(c *ent.Client, dialectName string) {
	c.Message.Use(hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.MessageFunc(func(ctx context.Context, m *ent.MessageMutation) (ent.Value, error) {
			content, ok := m.Content()
			owner, _ := m.OwnerID()
			if ok {
				m.SetSearchTokens(Encode(dialectName, tenantOf(ctx, m.TenantID), owner, content))
			}
			return next.Mutate(ctx, m)
		})
	}, ent.OpCreate))
	c.Conversation.Use(hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.ConversationFunc(func(ctx context.Context, m *ent.ConversationMutation) (ent.Value, error) {
			title, ok := m.Title()
			if !ok {
				return next.Mutate(ctx, m)
			}
			switch {
			case m.Op().Is(ent.OpCreate):
				user, _ := m.UserID()
				m.SetSearchTokens(Encode(dialectName, tenantOf(ctx, m.TenantID), user, title))
			case m.Op().Is(ent.OpUpdateOne):
				user, err := m.OldUserID(ctx)
				if err != nil {
					return nil, err
				}
				tenant, err := m.OldTenantID(ctx)
				if err != nil {
					return nil, err
				}
				m.SetSearchTokens(Encode(dialectName, tenant, user, title))
			default:
				if err := bulkTitle(ctx, m, dialectName, title); err != nil {
					return nil, err
				}
			}
			return next.Mutate(ctx, m)
		})
	}, ent.OpCreate|ent.OpUpdate|ent.OpUpdateOne))
}

// bulkTitle sets the tokens of a bulk title update: the rows it matches
// (as the mutation's own predicates and privacy select them) must share
// one owner, whose term the tokens carry; none matching leaves it as it is.
func bulkTitle(ctx context.Context, m *ent.ConversationMutation, dialectName, title string) error {
	ids, err := m.IDs(ctx)
	if err != nil || len(ids) == 0 {
		return err
	}
	var rows []struct {
		TenantID string `json:"tenant_id"`
		UserID   string `json:"user_id"`
	}
	err = m.Client().Conversation.Query().Where(conversation.IDIn(ids...)).
		GroupBy(conversation.FieldTenantID, conversation.FieldUserID).Scan(ctx, &rows)
	if err != nil {
		return err
	}
	if len(rows) != 1 {
		return ErrBulkTitle
	}
	m.SetSearchTokens(Encode(dialectName, rows[0].TenantID, rows[0].UserID, title))
	return nil
}

// tenantOf is the mutation's tenant, or the viewer's when it is unset.
func tenantOf(ctx context.Context, fromMutation func() (string, bool)) string {
	if t, ok := fromMutation(); ok {
		return t
	}
	if v := viewer.FromContext(ctx); v != nil {
		return v.TenantID
	}
	return ""
}
