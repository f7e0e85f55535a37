package resolvers

import (
	"entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/sqljson"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/ent/predicate"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/adminreport"
)

// The admin views' inputs and outputs (schema/admin.graphqls,
// schema/feedback.graphqls). Role-dependent views live on entry points of
// their own, never on the shared entity types: a member's query that
// selects every field of every type it can reach must not get a FORBIDDEN
// error, which Apollo's default error policy turns into no data at all
// (docs/API.md, "Admin diagnostics").

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

// feedbackPredicates translates the admin feedback filter.
func feedbackPredicates(w *model.AdminFeedbackWhereInput) []predicate.Feedback {
	if w == nil {
		return nil
	}
	ps := adminreport.WhereSet(nil, w.Rating, feedback.RatingEQ)
	if w.ReasonCode != nil {
		code := string(*w.ReasonCode)
		ps = append(ps, predicate.Feedback(func(s *sql.Selector) {
			s.Where(sqljson.ValueContains(feedback.FieldReasonCodes, code))
		}))
	}
	if w.Model != nil {
		ps = append(ps, feedback.HasAttemptWith(attempt.Model(*w.Model)))
	}
	ps = adminreport.WhereSet(ps, w.UserID, feedback.UserID)
	ps = adminreport.WhereSet(ps, w.CreatedAfter, feedback.CreatedAtGTE)
	return adminreport.WhereSet(ps, w.CreatedBefore, feedback.CreatedAtLT)
}

// attemptTimings returns an attempt's timestamps and durations.
func attemptTimings(a *ent.Attempt) *model.AttemptTimings {
	t := &model.AttemptTimings{StartedAt: a.StartedAt, FirstTokenAt: a.FirstTokenAt, CompletedAt: a.CompletedAt}
	if a.FirstTokenAt != nil {
		ms := int(a.FirstTokenAt.Sub(a.StartedAt).Milliseconds())
		t.TimeToFirstTokenMs = &ms
	}
	if a.CompletedAt != nil {
		ms := int(a.CompletedAt.Sub(a.StartedAt).Milliseconds())
		t.DurationMs = &ms
	}
	return t
}
