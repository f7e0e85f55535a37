package resolvers

import (
	"context"
	"sort"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/sqljson"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/ent/predicate"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/adminreport"
)

// adminConversations pages the conversations of the admin's tenant that
// internal/adminreport selects for the filter (adminreport.Conversations,
// which decides the role and whether DELETED ones and their content show), under
// the context it returns. Every conversation of another user listed is
// audited once per operation.
func (r *Resolver) adminConversations(ctx context.Context, after *Cursor, first *int, before *Cursor, last *int, orderBy *ent.ConversationOrder, where *model.AdminConversationWhereInput) (*ent.ConversationConnection, error) {
	if orderBy == nil {
		orderBy = &ent.ConversationOrder{Direction: entgql.OrderDirectionDesc, Field: ent.ConversationOrderFieldCreatedAt}
	}
	org := organiseFilter(where)
	if err := org.Check(); err != nil {
		return nil, err
	}
	ctx, q, err := adminreport.Conversations(ctx, r.client, adminConversationFilter(where), r.now())
	if err != nil {
		return nil, err
	}
	q.Where(org.Predicates()...)
	return q.Paginate(ctx, after, first, before, last, ent.WithConversationOrder(orderBy))
}

// adminConversationFilter is adminreport's form of the admin filter.
func adminConversationFilter(w *model.AdminConversationWhereInput) adminreport.ConversationFilter {
	if w == nil {
		return adminreport.ConversationFilter{}
	}
	return adminreport.ConversationFilter{
		Status:              w.Status,
		UserID:              w.UserID,
		KnowledgeBaseID:     w.KnowledgeBaseID,
		CreatedAfter:        w.CreatedAfter,
		CreatedBefore:       w.CreatedBefore,
		TitleContains:       w.TitleContains,
		HasNegativeFeedback: w.HasNegativeFeedback,
	}
}

// feedbacks pages the tenant's feedback, newest first by default.
func (r *Resolver) feedbacks(ctx context.Context, after *Cursor, first *int, before *Cursor, last *int, orderBy *ent.FeedbackOrder, where *model.AdminFeedbackWhereInput) (*ent.FeedbackConnection, error) {
	q, err := adminreport.Feedbacks(ctx, r.client)
	if err != nil {
		return nil, err
	}
	if orderBy == nil {
		orderBy = &ent.FeedbackOrder{Direction: entgql.OrderDirectionDesc, Field: ent.FeedbackOrderFieldCreatedAt}
	}
	return q.Where(feedbackPredicates(where)...).
		Paginate(ctx, after, first, before, last, ent.WithFeedbackOrder(orderBy))
}

// feedbackPredicates translates the admin feedback filter.
func feedbackPredicates(w *model.AdminFeedbackWhereInput) []predicate.Feedback {
	if w == nil {
		return nil
	}
	var ps []predicate.Feedback
	if w.Rating != nil {
		ps = append(ps, feedback.RatingEQ(*w.Rating))
	}
	if w.ReasonCode != nil {
		code := string(*w.ReasonCode)
		ps = append(ps, predicate.Feedback(func(s *sql.Selector) {
			s.Where(sqljson.ValueContains(feedback.FieldReasonCodes, code))
		}))
	}
	if w.Model != nil {
		ps = append(ps, feedback.HasAttemptWith(attempt.Model(*w.Model)))
	}
	if w.UserID != nil {
		ps = append(ps, feedback.UserID(*w.UserID))
	}
	if w.CreatedAfter != nil {
		ps = append(ps, feedback.CreatedAtGTE(*w.CreatedAfter))
	}
	if w.CreatedBefore != nil {
		ps = append(ps, feedback.CreatedAtLT(*w.CreatedBefore))
	}
	return ps
}

// feedbackSummary counts the tenant's feedback in [from, to).
func (r *Resolver) feedbackSummary(ctx context.Context, from, to time.Time) (*model.FeedbackSummary, error) {
	s, err := adminreport.Feedback(ctx, r.client, from, to)
	if err != nil {
		return nil, err
	}
	out := &model.FeedbackSummary{From: s.From, To: s.To, Up: s.Up, Down: s.Down, ByReason: []*model.FeedbackReasonCount{}}
	for reason, n := range s.ByReason {
		out.ByReason = append(out.ByReason, &model.FeedbackReasonCount{Reason: reason, Count: n})
	}
	sort.Slice(out.ByReason, func(i, j int) bool { return out.ByReason[i].Reason < out.ByReason[j].Reason })
	return out, nil
}

// usageSummary sums the tenant's tokens by model and UTC day in [from, to).
func (r *Resolver) usageSummary(ctx context.Context, from, to time.Time) ([]*model.UsageRow, error) {
	svc, err := r.metering()
	if err != nil {
		return nil, err
	}
	rows, err := svc.UsageSummary(ctx, from, to)
	if err != nil {
		return nil, err
	}
	out := make([]*model.UsageRow, len(rows))
	for i, u := range rows {
		out[i] = &model.UsageRow{
			Day:              u.Day.UTC().Format(time.DateOnly),
			Model:            u.Model,
			Attempts:         u.Attempts,
			PromptTokens:     u.PromptTokens,
			CompletionTokens: u.CompletionTokens,
			TotalTokens:      u.TotalTokens,
			CostMicros:       int(u.CostMicros),
		}
	}
	return out, nil
}
