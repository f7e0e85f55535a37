package quota

import (
	"context"
	"fmt"
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/usageentry"
)

// Charged is one call's usage for RecordIn.
type Charged struct {
	Call  Call
	Usage Usage
}

// RecordIn writes the SETTLE entries of calls whose quota limits nothing
// (no counter moves, see Charge) through c, the client of the caller's
// open transaction, in one statement: an answer's completion transaction
// writes its own usage and that of its side calls with the answer, so the
// ledger gains them exactly when the answer is saved. Calls without usage
// are skipped; with none left it sends nothing.
func (m *Meter) RecordIn(ctx context.Context, c *ent.Client, now time.Time, calls ...Charged) error {
	bulk := make([]*ent.UsageEntryCreate, 0, len(calls))
	for _, ch := range calls {
		call, u := ch.Call, ch.Usage
		if u.PromptTokens == 0 && u.CompletionTokens == 0 {
			continue
		}
		bulk = append(bulk, m.settleEntry(ctx, c, call, u, now))
	}
	if len(bulk) == 0 {
		return nil
	}
	if err := c.UsageEntry.CreateBulk(bulk...).Exec(meterCtx(ctx)); err != nil {
		return fmt.Errorf("usage ledger: %w", err)
	}
	return nil
}

// settleEntry is the SETTLE entry of call with usage u, priced.
func (m *Meter) settleEntry(ctx context.Context, c *ent.Client, call Call, u Usage, now time.Time) *ent.UsageEntryCreate {
	return c.UsageEntry.Create().
		SetKind(usageentry.KindSETTLE).SetTenantID(call.TenantID).SetUserID(call.UserID).
		SetNillableAttemptID(call.AttemptID).SetPurpose(call.Purpose).SetModel(call.Model).
		SetNillableProfile(call.Profile).
		SetPromptTokens(u.PromptTokens).SetCompletionTokens(u.CompletionTokens).
		SetCostMicros(m.cost(ctx, call.Model, call.Price, u)).
		SetCreatedAt(now)
}
