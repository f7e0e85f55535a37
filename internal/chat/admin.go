package chat

import (
	"context"
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/ent/predicate"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/readaudit"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// maxReportSpan bounds the period of the admin reports.
const maxReportSpan = 366 * 24 * time.Hour

// checkPeriod validates a [from, to) reporting period of at most 366 days.
// It is the only check of the period (the resolvers pass it through).
func checkPeriod(from, to time.Time) error {
	if !from.Before(to) {
		return badInput("to", "to must be after from")
	}
	if to.Sub(from) > maxReportSpan {
		return badInput("from", "the period must not exceed 366 days")
	}
	return nil
}

// AdminConversations returns the query of the admin's tenant's
// conversations that match f (admins only, FORBIDDEN otherwise; Ent
// privacy keeps it inside the tenant), and the context to run it under.
// DELETED conversations are listed only when f asks for that status, and
// then with their content: the returned context, and every context of the
// deleted-rows scope ctx lies in (authz.WithDeletedScope: the GraphQL
// field's subtree), sees the rows beneath them too. This is the one place
// that decides it. Every conversation of another user the query loads is
// audited by the read audit (internal/readaudit), as any read.
func (e *Engine) AdminConversations(ctx context.Context, f AdminConversationFilter) (context.Context, *ent.ConversationQuery, error) {
	if _, err := viewer.RequireAdmin(ctx); err != nil {
		return ctx, nil, err
	}
	// Temporary chats are never listed, not even DELETED ones (temporary.go).
	ps := []predicate.Conversation{authz.NotTemporary()}
	switch {
	case f.Status == nil:
		ps = append(ps, conversation.StatusNEQ(conversation.StatusDELETED))
	case *f.Status == conversation.StatusDELETED:
		ctx = authz.IncludeDeletedInScope(ctx)
		fallthrough
	default:
		ps = append(ps, e.ConversationStatusIs(*f.Status))
	}
	if f.UserID != nil {
		ps = append(ps, conversation.UserID(*f.UserID))
	}
	if f.KnowledgeBaseID != nil {
		ps = append(ps, conversation.KnowledgeBaseID(*f.KnowledgeBaseID))
	}
	if f.CreatedAfter != nil {
		ps = append(ps, conversation.CreatedAtGTE(*f.CreatedAfter))
	}
	if f.CreatedBefore != nil {
		ps = append(ps, conversation.CreatedAtLT(*f.CreatedBefore))
	}
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
	return ctx, e.client.Conversation.Query().Where(ps...), nil
}

// FeedbackSummary counts the tenant's feedback in [from, to) by rating and
// by reason code (admins only). An aggregate is not a read of anyone's
// content, so it is not audited.
func (e *Engine) FeedbackSummary(ctx context.Context, from, to time.Time) (*FeedbackSummary, error) {
	if _, err := viewer.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	if err := checkPeriod(from, to); err != nil {
		return nil, err
	}
	ctx = readaudit.Exempt(ctx)
	rows, err := e.client.Feedback.Query().
		Where(feedback.CreatedAtGTE(from), feedback.CreatedAtLT(to)).
		Select(feedback.FieldRating, feedback.FieldReasonCodes).
		All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "feedback")
	}
	out := &FeedbackSummary{From: from, To: to, ByReason: map[domain.FeedbackReason]int{}}
	for _, f := range rows {
		if f.Rating == feedback.RatingUP {
			out.Up++
		} else {
			out.Down++
		}
		for _, r := range f.ReasonCodes {
			out.ByReason[r]++
		}
	}
	return out, nil
}
