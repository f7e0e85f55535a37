package chat

import (
	"context"
	"sync"
	"time"
)

// A PurgeJob is work that another service adds to the engine's purge
// (PurgeOnce): it runs as the purge's system job with the engine's clock
// and returns how many rows or objects it removed. The attachment
// service's orphan blob sweep is one (internal/attachment, SweepOrphans).
type PurgeJob func(ctx context.Context, now time.Time) (int, error)

// purgeJobs are the jobs added with AddPurgeJob.
type purgeJobs struct {
	mu   sync.Mutex
	jobs []PurgeJob
}

// AddPurgeJob makes every later PurgeOnce run job after the engine's own
// purge, in the order the jobs were added.
func (e *Engine) AddPurgeJob(job PurgeJob) {
	e.purgeJobs.mu.Lock()
	defer e.purgeJobs.mu.Unlock()
	e.purgeJobs.jobs = append(e.purgeJobs.jobs, job)
}

// runPurgeJobs runs the added jobs at now; the first error stops them.
func (e *Engine) runPurgeJobs(ctx context.Context, now time.Time) (int, error) {
	e.purgeJobs.mu.Lock()
	jobs := append([]PurgeJob(nil), e.purgeJobs.jobs...)
	e.purgeJobs.mu.Unlock()
	total := 0
	for _, job := range jobs {
		n, err := job(ctx, now)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}
