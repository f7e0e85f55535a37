// Package adminreport is what a tenant's admins read across their
// tenant's users: the listing of conversations (deleted ones on request)
// and the feedback summary (docs/API.md, "Admin"). Every function checks
// the admin role first (FORBIDDEN otherwise) and reads through the
// admin's Ent client, whose privacy rules keep it inside the tenant.
package adminreport

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/ent/predicate"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/viewer"
)

// ConversationFilter narrows an admin's listing of the tenant's
// conversations (Conversations); nil fields do not filter. Status is
// the status clients read (EXPIRED computed, authz.StatusIs).
type ConversationFilter struct {
	Status              *conversation.Status
	UserID              *string
	KnowledgeBaseID     *uuid.UUID
	CreatedAfter        *time.Time
	CreatedBefore       *time.Time
	TitleContains       *string
	HasNegativeFeedback *bool
}

// Conversations returns the query of the admin's tenant's
// conversations that match f (admins only, FORBIDDEN otherwise; Ent
// privacy keeps it inside the tenant), and the context to run it under.
// DELETED conversations are listed only when f asks for that status, and
// then with their content: the returned context, and every context of the
// deleted-rows scope ctx lies in (authz.WithDeletedScope: the GraphQL
// field's subtree), sees the rows beneath them too. This is the one place
// that decides it. Every conversation of another user the query loads is
// audited by the read audit (internal/readaudit), as any read.
func Conversations(ctx context.Context, client *ent.Client, f ConversationFilter, now time.Time) (context.Context, *ent.ConversationQuery, error) {
	if _, err := viewer.RequireAdmin(ctx); err != nil {
		return ctx, nil, err
	}
	// Temporary chats are never listed, not even DELETED ones.
	ps := []predicate.Conversation{authz.NotTemporary()}
	switch {
	case f.Status == nil:
		ps = append(ps, conversation.StatusNEQ(conversation.StatusDELETED))
	case *f.Status == conversation.StatusDELETED:
		ctx = authz.IncludeDeletedInScope(ctx)
		fallthrough
	default:
		ps = append(ps, authz.StatusIs(*f.Status, now))
	}
	ps = WhereSet(ps, f.UserID, conversation.UserID)
	ps = WhereSet(ps, f.KnowledgeBaseID, conversation.KnowledgeBaseID)
	ps = WhereSet(ps, f.CreatedAfter, conversation.CreatedAtGTE)
	ps = WhereSet(ps, f.CreatedBefore, conversation.CreatedAtLT)
	if f.TitleContains != nil && *f.TitleContains != "" {
		ps = append(ps, conversation.TitleContainsFold(*f.TitleContains))
	}
	if f.HasNegativeFeedback != nil {
		negative := conversation.HasAttemptsWith(attempt.HasFeedbackWith(feedback.RatingEQ(feedback.RatingDOWN)))
		if *f.HasNegativeFeedback {
			ps = append(ps, negative)
		} else {
			ps = append(ps, conversation.Not(negative))
		}
	}
	return ctx, client.Conversation.Query().Where(ps...), nil
}
