package adminreport

import (
	"context"
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/readaudit"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// FeedbackSummary counts feedback in a period.
type FeedbackSummary struct {
	From, To time.Time
	Up, Down int
	ByReason map[domain.FeedbackReason]int
}

// Feedback counts the tenant's feedback in [from, to) by rating and
// by reason code (admins only). An aggregate is not a read of anyone's
// content, so it is not audited.
func Feedback(ctx context.Context, client *ent.Client, from, to time.Time) (*FeedbackSummary, error) {
	if _, err := viewer.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	if err := domain.CheckPeriod(from, to); err != nil {
		return nil, err
	}
	ctx = readaudit.Exempt(ctx)
	rows, err := client.Feedback.Query().
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
