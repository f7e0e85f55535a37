package quota

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/viewer"
)

// SideCallHold is how long a side call (a rewrite, a title, a summary) may
// hold its reservation: Reconcile refunds one that a crash left open only
// after it, since a title or a summary outlives its attempt's lease. Side
// calls end within the minute the engine gives them after an answer.
const SideCallHold = 5 * time.Minute

// Reconcile closes the reservations a crash left open
// (internal/quota/README.md); the engine's reaper runs it with each
// pass (chat.Deps.ReconcileUsage). It closes those older than the lease
// whose attempt has ended, or is gone: a COMPLETED attempt settles the
// usage it stored, at the price of its model profile if it had one; any
// other end is refunded. It returns how many it closed.
func (s *Service) Reconcile(ctx context.Context) (int, error) {
	ctx = viewer.SystemJobContext(ctx, viewer.JobReaper)
	now := s.now()
	open, err := s.client.UsageEntry.Query().
		Where(usageentry.KindEQ(usageentry.KindRESERVE), usageentry.Not(usageentry.HasClosedBy()),
			usageentry.AttemptIDNotNil(), usageentry.CreatedAtLT(now.Add(-s.lease))).
		Limit(200).All(ctx)
	if err != nil || len(open) == 0 {
		return 0, err
	}
	ids := make([]uuid.UUID, len(open))
	for i, r := range open {
		ids[i] = *r.AttemptID
	}
	atts, err := s.client.Attempt.Query().Where(attempt.IDIn(ids...)).All(ctx)
	if err != nil {
		return 0, err
	}
	byID := make(map[uuid.UUID]*ent.Attempt, len(atts))
	for _, a := range atts {
		byID[a.ID] = a
	}
	n := 0
	for _, r := range open {
		a := byID[*r.AttemptID]
		var u Usage
		var price *Price
		model := ""
		switch {
		case r.Purpose != usageentry.PurposeANSWER:
			// A side call's: its usage is unknown after a crash, and it
			// may outlive its attempt's lease (a title after the answer),
			// so it is refunded once no call can still hold it.
			if r.CreatedAt.After(now.Add(-SideCallHold)) {
				continue
			}
		case a == nil:
			// Never written (the ask's transaction rolled back after the
			// reservation was read) or purged: nothing was used.
		case a.Status == attempt.StatusPENDING:
			continue
		case a.Status == attempt.StatusCOMPLETED:
			u = Usage{PromptTokens: a.PromptTokens, CompletionTokens: a.CompletionTokens}
			if a.Model != nil {
				model = *a.Model
			}
			price = s.recordedPrice(ctx, r.TenantID, a)
		}
		closed, err := s.meter.Close(ctx, r, u, model, price, s.now())
		if err != nil {
			return n, err
		}
		if closed {
			n++
		}
	}
	return n, nil
}

// recordedPrice is the price of the model profile a's attempt recorded
// (nil: the server model's list price, also when the profile is not
// read, which is logged), as its run would have settled it.
func (s *Service) recordedPrice(ctx context.Context, tenantID string, a *ent.Attempt) *Price {
	if s.profiles == nil || a.ModelProfileID == nil {
		return nil
	}
	r, err := s.profiles.Recorded(ctx, tenantID, a.ModelProfileID, a.ModelParameters)
	if err != nil {
		s.log.WarnContext(ctx, "model profile not read; the answer is settled at the list price", "attempt", a.ID, "err", err)
		return nil
	}
	return Charge{}.Profiled(r).Price
}
