package attachment

import (
	"context"
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
)

// recoverBatch bounds the attachments one Recover pass reads.
const recoverBatch = 100

// Recover takes over the attachments of every instance whose processing
// lease expired at now: an instance stopped (killed, crashed) while it
// held them queued or running, or an attempt passed its deadline. One
// that started fewer than maxAttempts attempts is queued here for
// another (as many as the queue has room for; the rest wait for a later
// pass or another instance); one whose last attempt was lost is FAILED
// with PROCESSING_INTERRUPTED, its bytes deleted, and no longer counts
// against its owner's limits. Each takeover is conditional on the row
// being as read, so two instances never take the same attachment. It
// returns how many it took over. The pool runs it every RecoverEvery
// (and at start).
func (s *Service) Recover(ctx context.Context, now time.Time) (int, error) {
	stuck, err := s.client.Attachment.Query().
		Where(processing(), expired(now)).
		Order(ent.Asc(attachment.FieldCreatedAt)).
		Limit(recoverBatch).All(sys(ctx))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, a := range stuck {
		if a.Attempts >= maxAttempts {
			ok, err := s.fail(ctx, a, FailureInterrupted, expired(now))
			if err != nil {
				return n, err
			}
			if ok {
				n++
			}
			continue
		}
		if !s.pool.reserve() {
			break
		}
		taken, err := s.client.Attachment.Update().
			Where(fenced(a.ID, a.Attempts), expired(now)).
			SetLeaseUntil(s.now().Add(s.opts.Lease)).Save(sys(ctx))
		if err != nil || taken == 0 {
			s.pool.unreserve()
			if err != nil {
				return n, err
			}
			continue
		}
		s.pool.submit(job{id: a.ID, attempts: a.Attempts})
		n++
	}
	return n, nil
}
