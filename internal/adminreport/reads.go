package adminreport

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Feedbacks returns the query of the tenant's feedback (admins only,
// FORBIDDEN otherwise), for the caller to filter and page.
func Feedbacks(ctx context.Context, client *ent.Client) (*ent.FeedbackQuery, error) {
	if _, err := viewer.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	return client.Feedback.Query(), nil
}

// AuditEvents returns the query of the tenant's audit events (admins
// only, FORBIDDEN otherwise), for the caller to filter and page.
func AuditEvents(ctx context.Context, client *ent.Client) (*ent.AuditEventQuery, error) {
	if _, err := viewer.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	return client.AuditEvent.Query(), nil
}

// Attempt returns one attempt of the tenant for its diagnostics (admins
// only, FORBIDDEN otherwise); an attempt of a DELETED conversation is
// NOT_FOUND "attempt", like an unknown one.
func Attempt(ctx context.Context, client *ent.Client, id uuid.UUID) (*ent.Attempt, error) {
	if _, err := viewer.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	a, err := client.Attempt.Query().
		Where(attempt.ID(id), attempt.HasConversationWith(conversation.StatusNEQ(conversation.StatusDELETED))).
		Only(ctx)
	if err != nil {
		return nil, store.DomainError(err, "attempt")
	}
	return a, nil
}
