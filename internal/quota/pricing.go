// Package quota meters the tokens of model calls: the append-only usage
// ledger (ent UsageEntry), the per-period quota counters shared by every
// instance on the database (ent UsageCounter), and the prices that turn
// tokens into cost (internal/quota/README.md). The
// engine writes through Meter (meter.go, record.go); Service (service.go)
// is what viewers, admins and the reaper reach: myUsage, grants and
// per-user overrides (grant.go, usagegrant.go), the usage and cost
// reports (usagereport.go) and the reconciliation (reconcile.go).
package quota

import (
	"context"
	"encoding/json"
	"fmt"
)

// Pricing says what a model costs, in micro-units of the tenant's
// currency per million prompt (input) and completion (output) tokens. A
// model without a price costs zero. Model profiles can implement it
// later; the ledger already records a profile column for them.
type Pricing interface {
	Price(ctx context.Context, model string) (inputPerM, outputPerM int64)
}

// Price is one model's price per million tokens, in micro-units.
type Price struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

// StaticPricing is a fixed price list by model name (the configuration's
// RAGCHAT_MODEL_PRICES).
type StaticPricing map[string]Price

// Price implements Pricing.
func (p StaticPricing) Price(_ context.Context, model string) (int64, int64) {
	pr := p[model]
	return pr.Input, pr.Output
}

// ParsePrices reads a price list written as JSON,
// {"model":{"input":N,"output":N}}; the empty string is no prices.
func ParsePrices(s string) (StaticPricing, error) {
	p := StaticPricing{}
	if s == "" {
		return p, nil
	}
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		return nil, fmt.Errorf("model prices: %w", err)
	}
	for m, pr := range p {
		if pr.Input < 0 || pr.Output < 0 {
			return nil, fmt.Errorf("model prices: the price of %q is negative", m)
		}
	}
	return p, nil
}

// cost is what u costs at price, or when price is nil at the meter's
// price of model.
func (m *Meter) cost(ctx context.Context, model string, price *Price, u Usage) int64 {
	if price != nil {
		return cost(price.Input, price.Output, u.PromptTokens, u.CompletionTokens)
	}
	return Cost(ctx, m.pricing, model, u.PromptTokens, u.CompletionTokens)
}

// cost is what prompt and completion tokens cost at in and out per
// million, in micro-units, rounded up to a whole micro-unit.
func cost(in, out int64, prompt, completion int) int64 {
	return (in*int64(prompt) + out*int64(completion) + 999_999) / 1_000_000
}

// Cost is what prompt and completion tokens of model cost under p, in
// micro-units, rounded up to a whole micro-unit.
func Cost(ctx context.Context, p Pricing, model string, prompt, completion int) int64 {
	if p == nil {
		return 0
	}
	in, out := p.Price(ctx, model)
	return cost(in, out, prompt, completion)
}
