package attachment

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/predicate"
	"github.com/ragchat/ragchat/internal/viewer"
)

// The processing lease (internal/attachment/README.md). An attachment
// that is UPLOADED, SCANNING or CHUNKING is held by the instance that
// queued or processes it until lease_until, which that instance renews
// while it holds it (heartbeat). attempts counts the processing attempts
// started and fences every write of an attempt: each one is conditional
// on the row still being in processing with the attempts its attempt
// began with, so an attempt that was taken over (its instance stopped,
// its lease ran out) can no longer change the row. Once a lease has
// expired, any instance takes the attachment over (Recover): it retries
// it while fewer than maxAttempts attempts started, and fails it
// (PROCESSING_INTERRUPTED) after that.

// maxAttempts is how many processing attempts an attachment gets: the
// first and one retry.
const maxAttempts = 2

// processing is the predicate of an attachment still being processed.
func processing() predicate.Attachment {
	return attachment.StatusIn(attachment.StatusUPLOADED, attachment.StatusSCANNING, attachment.StatusCHUNKING)
}

// fenced is the predicate of attachment id still in the attempt that
// began with attempts.
func fenced(id uuid.UUID, attempts int) predicate.Attachment {
	return attachment.And(attachment.ID(id), attachment.Attempts(attempts), processing())
}

// expired is the predicate of a lease that ran out at now (or of a row
// queued before leases existed).
func expired(now time.Time) predicate.Attachment {
	return attachment.Or(attachment.LeaseUntilIsNil(), attachment.LeaseUntilLT(now))
}

// sys is ctx as the attachment job: processing and recovery act for the
// owner of every attachment.
func sys(ctx context.Context) context.Context {
	return viewer.SystemJobContext(ctx, viewer.JobAttachments)
}

// claim starts an attempt of the job's attachment: attempts goes from
// j.attempts to j.attempts+1 and the lease is renewed. It returns the
// row, or nil when the attachment was taken over or finished meanwhile.
func (s *Service) claim(ctx context.Context, j job) (*ent.Attachment, error) {
	n, err := s.client.Attachment.Update().Where(fenced(j.id, j.attempts)).
		AddAttempts(1).SetLeaseUntil(s.now().Add(s.opts.Lease)).Save(sys(ctx))
	if err != nil || n == 0 {
		return nil, err
	}
	return s.client.Attachment.Get(sys(ctx), j.id)
}

// renew extends the leases of the attachments held, each in its attempt.
func (s *Service) renew(ctx context.Context, held map[uuid.UUID]int) error {
	if len(held) == 0 {
		return nil
	}
	byAttempts := map[int][]uuid.UUID{}
	for id, n := range held {
		byAttempts[n] = append(byAttempts[n], id)
	}
	until := s.now().Add(s.opts.Lease)
	for n, ids := range byAttempts {
		err := s.client.Attachment.Update().
			Where(attachment.IDIn(ids...), attachment.Attempts(n), processing()).
			SetLeaseUntil(until).Exec(sys(ctx))
		if err != nil {
			return err
		}
	}
	return nil
}

// expire ends the lease of a's attempt now, so that Recover retries it;
// back, when true, also gives the attempt back (a shutdown interrupted
// it: it does not count).
func (s *Service) expire(ctx context.Context, a *ent.Attachment, back bool) error {
	u := s.client.Attachment.Update().Where(fenced(a.ID, a.Attempts)).SetLeaseUntil(s.now())
	if back && a.Attempts > 0 {
		u.AddAttempts(-1)
	}
	return u.Exec(sys(ctx))
}

// release ends the lease of an attachment queued here and never started
// (a shutdown): Recover takes it over on any instance.
func (s *Service) release(ctx context.Context, j job) error {
	return s.client.Attachment.Update().Where(fenced(j.id, j.attempts)).
		SetLeaseUntil(s.now()).Exec(sys(ctx))
}
