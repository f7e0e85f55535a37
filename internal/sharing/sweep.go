package sharing

import (
	"context"
	"time"

	"github.com/ragchat/ragchat/internal/periodic"
)

// The read buckets' sweep. Each client address and each link read gets a
// bucket row in the database limiter; a bucket that is full again (its
// client idle for a burst's refill time) is swept, so addresses that came
// once do not stay for good.
const (
	// SweepEvery is how often RunSweeps sweeps.
	SweepEvery = time.Minute
	// sweepBatch bounds one sweep statement; sweepBatches bounds the
	// statements of one sweep (at most 100,000 rows per sweep).
	sweepBatch   = 1000
	sweepBatches = 100
	// bucketTenant is the tenant part of every share bucket key
	// (askrate.Key).
	bucketTenant = "share"
)

// idleSweeper is what a limiter needs to have its idle buckets swept
// (askrate.DBLimiter).
type idleSweeper interface {
	SweepIdle(ctx context.Context, tenant string, limit int) (int, error)
}

// SweepIdle deletes the read buckets that are full again, in statements
// of at most sweepBatch rows and at most sweepBatches statements, and
// returns how many it deleted. Deleting a full bucket changes no later
// read's outcome. A limiter that keeps no rows is not swept.
func (s *Service) SweepIdle(ctx context.Context) (int, error) {
	sw, ok := s.limiter.(idleSweeper)
	if !ok {
		return 0, nil
	}
	total := 0
	for range sweepBatches {
		n, err := sw.SweepIdle(ctx, bucketTenant, sweepBatch)
		total += n
		if err != nil || n < sweepBatch {
			return total, err
		}
	}
	return total, nil
}

// RunSweeps calls SweepIdle every interval until ctx is done; failures are
// logged and the next sweep tries again.
func (s *Service) RunSweeps(ctx context.Context, every time.Duration) {
	periodic.Every(ctx.Done(), every, func() bool {
		if n, err := s.SweepIdle(ctx); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "share read buckets not swept", "deleted", n, "err", err)
		}
		return true
	})
}
