package chat

import (
	"context"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/internal/conversations"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// SubmitFeedback records the viewer's rating of one COMPLETED attempt in a
// conversation they own: feedback always names the exact answer it rates
// (docs/ENGINE.md D4).
// A second submission by the same user replaces the first. A blank comment
// means none.
func (e *Engine) SubmitFeedback(ctx context.Context, in FeedbackInput) (*ent.Feedback, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	rating := feedback.Rating(in.Rating)
	if err := feedback.RatingValidator(rating); err != nil {
		return nil, badInput("rating", "rating must be UP or DOWN")
	}
	reasons, err := e.checkReasons(in.Reasons)
	if err != nil {
		return nil, err
	}
	var comment *string
	if in.Comment != nil {
		c, err := e.checkComment("comment", *in.Comment)
		if err != nil {
			return nil, err
		}
		if c != "" {
			comment = &c
		}
	}
	att, _, err := conversations.LoadOwnAttempt(ctx, e.client, in.AttemptID, e.now())
	if err != nil {
		return nil, err
	}
	if att.Status != attempt.StatusCOMPLETED {
		return nil, domain.Errorf(domain.CodeBadUserInput, "feedback is accepted only on a completed answer (this attempt is %s)", att.Status)
	}
	for try := 0; try < 2; try++ {
		fb, err := e.upsertFeedback(ctx, att, v.UserID, rating, reasons, comment)
		if err == nil {
			return fb, nil
		}
		if !ent.IsConstraintError(err) {
			return nil, store.DomainError(err, "feedback")
		}
		// A concurrent first submission won; update it on the next try.
	}
	return nil, domain.Errorf(domain.CodeConflict, "feedback changed concurrently; retry")
}

func (e *Engine) upsertFeedback(ctx context.Context, att *ent.Attempt, user string, rating feedback.Rating, reasons []domain.FeedbackReason, comment *string) (*ent.Feedback, error) {
	existing, err := e.client.Feedback.Query().
		Where(feedback.AttemptID(att.ID), feedback.UserID(user)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return e.client.Feedback.Create().
			SetAttemptID(att.ID).SetOwnerID(att.OwnerID).SetUserID(user).
			SetRating(rating).SetReasonCodes(reasons).SetNillableComment(comment).
			Save(ctx)
	case err != nil:
		return nil, err
	}
	upd := existing.Update().SetRating(rating).SetReasonCodes(reasons)
	if comment != nil {
		upd.SetComment(*comment)
	} else {
		upd.ClearComment()
	}
	return upd.Save(ctx)
}
