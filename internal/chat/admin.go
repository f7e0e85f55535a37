package chat

import (
	"context"
	"time"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

// checkPeriod validates a [from, to) reporting period (at most 400 days).
func checkPeriod(from, to time.Time) error {
	if !from.Before(to) {
		return domain.Errorf(domain.CodeBadUserInput, "from must be before to")
	}
	if to.Sub(from) > 400*24*time.Hour {
		return domain.Errorf(domain.CodeBadUserInput, "the period may span at most 400 days")
	}
	return nil
}

// FeedbackSummary counts the tenant's feedback in [from, to) by rating and
// by reason code (admins only).
func (e *Engine) FeedbackSummary(ctx context.Context, from, to time.Time) (*FeedbackSummary, error) {
	if _, err := viewer.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	if err := checkPeriod(from, to); err != nil {
		return nil, err
	}
	rows, err := e.client.Feedback.Query().
		Where(feedback.CreatedAtGTE(from), feedback.CreatedAtLT(to)).
		Select(feedback.FieldRating, feedback.FieldReasonCodes).
		All(ctx)
	if err != nil {
		return nil, storageError(err, "feedback")
	}
	out := &FeedbackSummary{From: from, To: to, ByReason: map[domain.FeedbackReason]int{}}
	for _, f := range rows {
		if f.Rating == feedback.RatingUP {
			out.Up++
		} else {
			out.Down++
		}
		for _, r := range f.ReasonCodes {
			out.ByReason[domain.FeedbackReason(r)]++
		}
	}
	return out, nil
}

// UsageSummary sums the tenant's token usage of completed attempts in
// [from, to) by model and UTC day (admins only), oldest day first.
func (e *Engine) UsageSummary(ctx context.Context, from, to time.Time) ([]UsageRow, error) {
	if _, err := viewer.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	if err := checkPeriod(from, to); err != nil {
		return nil, err
	}
	rows, err := e.client.Attempt.Query().
		Where(attempt.StatusEQ(attempt.StatusCOMPLETED), attempt.CompletedAtGTE(from), attempt.CompletedAtLT(to)).
		Select(attempt.FieldModel, attempt.FieldCompletedAt, attempt.FieldPromptTokens, attempt.FieldCompletionTokens, attempt.FieldTotalTokens).
		All(ctx)
	if err != nil {
		return nil, storageError(err, "attempt")
	}
	type key struct {
		day   time.Time
		model string
	}
	agg := map[key]*UsageRow{}
	var order []key
	for _, a := range rows {
		if a.CompletedAt == nil {
			continue
		}
		k := key{day: a.CompletedAt.UTC().Truncate(24 * time.Hour), model: "(none)"}
		if a.Model != nil {
			k.model = *a.Model
		}
		r, ok := agg[k]
		if !ok {
			r = &UsageRow{Day: k.day, Model: k.model}
			agg[k] = r
			order = append(order, k)
		}
		r.Attempts++
		r.PromptTokens += a.PromptTokens
		r.CompletionTokens += a.CompletionTokens
		r.TotalTokens += a.TotalTokens
	}
	out := make([]UsageRow, 0, len(order))
	for _, k := range order {
		out = append(out, *agg[k])
	}
	sortUsage(out)
	return out, nil
}
