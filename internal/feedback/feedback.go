// Package feedback records a user's rating of one exact answer: an
// attempt, COMPLETED, in a conversation they own (docs/ENGINE.md D4).
// Its reads and writes go through the viewer's Ent client; the input is
// checked against Options before anything is read.
package feedback

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	feedbackrow "github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/internal/conversations"
	"github.com/ragchat/ragchat/internal/defaults"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// DefaultReasonCodes bounds the reason codes of one feedback when Options
// names no bound.
const DefaultReasonCodes = 8

// Options bound the input of a feedback. Zero fields take the defaults.
type Options struct {
	// CommentChars bounds a comment, in characters after trimming
	// (RAGCHAT_MAX_COMMENT_CHARS; default domain.DefaultCommentChars).
	CommentChars int
	// ReasonCodes bounds the reason codes of one feedback (default
	// DefaultReasonCodes).
	ReasonCodes int
	// Now is the clock of the conversations' expiry (default time.Now).
	Now func() time.Time
}

// Input rates one COMPLETED attempt.
type Input struct {
	AttemptID uuid.UUID
	Rating    string // "UP" or "DOWN"
	Reasons   []domain.FeedbackReason
	Comment   *string
}

// Service records feedback.
type Service struct {
	client *ent.Client
	opts   Options
}

// New returns a Service writing through client (privacy-enforcing).
func New(client *ent.Client, o Options) *Service {
	o.CommentChars = defaults.Positive(o.CommentChars, domain.DefaultCommentChars)
	o.ReasonCodes = defaults.Positive(o.ReasonCodes, DefaultReasonCodes)
	o.Now = defaults.Clock(o.Now)
	return &Service{client: client, opts: o}
}

// Submit records the viewer's rating of one COMPLETED attempt in a
// conversation they own (conversations.LoadOwnAttempt): feedback always
// names the exact answer it rates (docs/ENGINE.md D4). A second submission
// by the same user replaces the first. A blank comment means none.
func (s *Service) Submit(ctx context.Context, in Input) (*ent.Feedback, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	rating := feedbackrow.Rating(in.Rating)
	if err := feedbackrow.RatingValidator(rating); err != nil {
		return nil, domain.BadInput("rating", "rating must be UP or DOWN")
	}
	reasons, err := s.checkReasons(in.Reasons)
	if err != nil {
		return nil, err
	}
	var comment *string
	if in.Comment != nil {
		c, err := domain.TextRule{Field: "comment", Limit: domain.LimitCommentLength, Max: s.opts.CommentChars}.Check(*in.Comment)
		if err != nil {
			return nil, err
		}
		if c != "" {
			comment = &c
		}
	}
	att, _, err := conversations.LoadOwnAttempt(ctx, s.client, in.AttemptID, s.opts.Now())
	if err != nil {
		return nil, err
	}
	if att.Status != attempt.StatusCOMPLETED {
		return nil, domain.Errorf(domain.CodeBadUserInput, "feedback is accepted only on a completed answer (this attempt is %s)", att.Status)
	}
	for try := 0; try < 2; try++ {
		fb, err := s.upsert(ctx, att, v.UserID, rating, reasons, comment)
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

// upsert writes user's feedback on att, or updates the one they gave.
func (s *Service) upsert(ctx context.Context, att *ent.Attempt, user string, rating feedbackrow.Rating, reasons []domain.FeedbackReason, comment *string) (*ent.Feedback, error) {
	existing, err := s.client.Feedback.Query().
		Where(feedbackrow.AttemptID(att.ID), feedbackrow.UserID(user)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return s.client.Feedback.Create().
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

// checkReasons validates feedback reason codes and returns them without
// duplicates, in the order given.
func (s *Service) checkReasons(in []domain.FeedbackReason) ([]domain.FeedbackReason, error) {
	if n := s.opts.ReasonCodes; len(in) > n {
		return nil, domain.OverLimit("reasons", domain.LimitReasonCodes, n, "at most %d reason codes", n)
	}
	out := make([]domain.FeedbackReason, 0, len(in))
	seen := make(map[domain.FeedbackReason]bool, len(in))
	for _, r := range in {
		if !r.Valid() {
			return nil, domain.BadInput("reasons", "unknown reason code %q", r)
		}
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out, nil
}
