package chat

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/ent/predicate"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
	"github.com/ragchat/ragchat/internal/waitgroup"
)

// RunBackground runs the reaper and the purge until ctx is done. With
// each reaper pass it also reconciles the usage ledger
// (Deps.ReconcileUsage) and forgets the recent outcomes older than
// outcomeTTL, so that an idle engine does not keep them.
func (e *Engine) RunBackground(ctx context.Context) {
	reap := time.NewTicker(e.cfg.ReaperInterval)
	defer reap.Stop()
	purge := time.NewTicker(e.cfg.PurgeInterval)
	defer purge.Stop()
	e.runJob(ctx, "reaper", e.ReapOnce)
	for {
		select {
		case <-ctx.Done():
			return
		case <-reap.C:
			e.runJob(ctx, "reaper", e.ReapOnce)
			if e.reconcileUsage != nil {
				e.runJob(ctx, "usage reconciliation", e.reconcileUsage)
			}
			e.outcomes.expire(time.Now())
		case <-purge.C:
			e.runJob(ctx, "purge", e.PurgeOnce)
		}
	}
}

func (e *Engine) runJob(ctx context.Context, name string, job func(context.Context) (int, error)) {
	n, err := job(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		e.log.WarnContext(ctx, "background job failed", "job", name, "err", err)
	case n > 0:
		e.log.InfoContext(ctx, "background job", "job", name, "rows", n)
	}
}

// ReapOnce fails every PENDING attempt whose lease has expired, across all
// tenants: its instance crashed, or lost the database for longer than the
// lease (docs/ENGINE.md, "Leases, the reaper and restarts"). The partial
// answer checkpoint is kept; no assistant message is written.
//
// A pass right after a failed one reaps nothing: while the database was
// down no holder could renew its lease, so every lease may look expired
// although its holder is alive and about to save a finished answer. The
// holder renews within CheckpointInterval once the database is back, which
// is shorter than ReaperInterval, so the next pass judges fairly.
func (e *Engine) ReapOnce(ctx context.Context) (int, error) {
	ctx = viewer.SystemJobContext(ctx, viewer.JobReaper)
	stale, err := e.client.Attempt.Query().
		Where(attempt.StatusEQ(attempt.StatusPENDING), attempt.LeaseExpiresAtLT(e.now())).
		Limit(500).
		All(ctx)
	if err != nil {
		e.reapBlind.Store(true)
		return 0, err
	}
	if e.reapBlind.Swap(false) {
		return 0, nil
	}
	n := 0
	for _, a := range stale {
		if _, local := e.running(a.ID); local {
			continue // ours and alive; its checkpointer renews the lease
		}
		if e.markInterrupted(ctx, a.ID, attempt.LeaseExpiresAtLT(e.now())) {
			n++
		}
	}
	return n, nil
}

// ReclaimOwn fails at once the PENDING attempts whose lease this instance
// held in a previous life (same InstanceID): after a crash and restart
// nothing of this instance is generating them, so there is no reason to
// wait for their leases to expire. Attempts running here now are left
// alone. The server calls it before it accepts requests.
func (e *Engine) ReclaimOwn(ctx context.Context) (int, error) {
	ctx = viewer.SystemJobContext(ctx, viewer.JobReaper)
	mine, err := e.client.Attempt.Query().
		Where(attempt.StatusEQ(attempt.StatusPENDING), attempt.LeaseOwner(e.cfg.InstanceID)).
		Limit(1000).
		All(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, a := range mine {
		if _, local := e.running(a.ID); local {
			continue
		}
		if e.markInterrupted(ctx, a.ID, attempt.LeaseOwner(e.cfg.InstanceID)) {
			n++
		}
	}
	return n, nil
}

// markInterrupted fails a PENDING attempt INTERRUPTED if cond still holds
// at the moment of the write (for the reaper: the lease is still expired,
// so a renewal that raced it wins). An attempt found ended meanwhile
// publishes its outcome to this instance's subscribers.
func (e *Engine) markInterrupted(ctx context.Context, id uuid.UUID, cond predicate.Attempt) bool {
	n, err := e.client.Attempt.Update().
		Where(attempt.ID(id), attempt.StatusEQ(attempt.StatusPENDING), cond).
		SetStatus(attempt.StatusFAILED).SetFailureCode(string(domain.FailureInterrupted)).
		SetFailureMessage("the answer was interrupted (its server stopped or lost the database)").
		SetCompletedAt(e.now()).ClearLeaseOwner().ClearLeaseExpiresAt().
		Save(ctx)
	if err != nil {
		return false
	}
	if n == 0 {
		e.publishEnded(ctx, id)
		return false
	}
	if a, err := e.client.Attempt.Get(ctx, id); err == nil {
		e.publishTerminal(ctx, a)
	} else {
		e.publishAttempt(ctx, id, EventFailed, 0, attemptPayload{Code: string(domain.FailureInterrupted)})
		e.broker.Retire(attemptTopic(id))
	}
	if err := e.meter.Refund(ctx, id, e.now()); err != nil {
		e.log.ErrorContext(ctx, "reservation not refunded; the reaper will", "attempt", id, "err", err)
	}
	e.obs.AttemptFinished("failed", domain.FailureInterrupted, "", 0, 0, 0)
	return true
}

// PurgeOnce applies every tenant's retention: DELETED conversations past
// RetentionDays are hard-deleted with everything beneath them (an audit
// event records each), so are temporary chats past their expiry
// (purgeTemporary), and audit events and feedback past their own
// retention are removed; then the jobs added with AddPurgeJob run (the
// orphan attachment blob sweep).
func (e *Engine) PurgeOnce(ctx context.Context) (int, error) {
	ctx = viewer.SystemJobContext(ctx, viewer.JobPurge)
	tenants, err := e.client.Tenant.Query().All(ctx)
	if err != nil {
		return 0, err
	}
	total := 0
	now := e.now()
	for _, t := range tenants {
		st := t.Settings.WithDefaults()
		days := func(n int) time.Time { return now.Add(-time.Duration(n) * 24 * time.Hour) }
		doomed, err := e.client.Conversation.Query().
			Where(conversation.TenantID(t.ID), conversation.StatusEQ(conversation.StatusDELETED),
				conversation.DeletedAtLT(days(st.RetentionDays))).
			Limit(1000).All(ctx)
		if err != nil {
			return total, err
		}
		for _, c := range doomed {
			if err := e.client.Conversation.DeleteOneID(c.ID).Exec(ctx); err != nil {
				return total, err
			}
			total++
			err := e.client.AuditEvent.Create().SetTenantID(t.ID).SetActor("system:purge").
				SetAction("conversation.purged").SetTargetType("Conversation").SetTargetID(c.ID.String()).
				SetMetadata(map[string]string{"owner": c.UserID}).Exec(ctx)
			if err != nil {
				return total, err
			}
		}
		n, err := e.purgeTemporary(ctx, t.ID, now)
		if err != nil {
			return total, err
		}
		total += n
		n, err = e.client.AuditEvent.Delete().
			Where(auditevent.TenantID(t.ID), auditevent.AtLT(days(st.AuditRetentionDays))).Exec(ctx)
		if err != nil {
			return total, err
		}
		total += n
		n, err = e.client.Feedback.Delete().
			Where(feedback.TenantID(t.ID), feedback.CreatedAtLT(days(st.FeedbackRetentionDays))).Exec(ctx)
		if err != nil {
			return total, err
		}
		total += n
	}
	n, err := e.runPurgeJobs(ctx, now)
	return total + n, err
}

// waitIdle waits until no answer runs on this instance and no work after
// an answer (summary, title) is left. Tests use it to make counted work
// deterministic; it must not race a new ask.
func (e *Engine) waitIdle() { e.wg.Wait() }

// Shutdown stops accepting asks and retries, waits for running attempts
// until ctx is done, then cancels the rest, which end FAILED(INTERRUPTED)
// so that a client retries rather than waiting for ever. Cancel requests
// from other instances are followed until it returns.
func (e *Engine) Shutdown(ctx context.Context) error {
	defer e.stopControl()
	e.mu.Lock()
	e.closing = true
	e.mu.Unlock()
	done := waitgroup.Done(&e.wg)
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	e.mu.Lock()
	for _, r := range e.runs {
		r.cancel(errShuttingDown)
	}
	e.mu.Unlock()
	select {
	case <-done:
		return nil
	case <-time.After(15 * time.Second):
		return domain.Errorf(domain.CodeInternal, "attempts still running after shutdown deadline")
	}
}
