package chat

import (
	"context"

	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/quota"
)

// Model profiles price the usage ledger: an answer on a profile is charged
// at the profile's prices (modelprofile.Resolved.PriceInputPerM and
// PriceOutputPerM) and its entries name the profile; an answer on the
// server's model is charged at Deps.Pricing (RAGCHAT_MODEL_PRICES).

// profilePriceKey carries the profile whose prices the meter applies.
type profilePriceKey struct{}

// profileCharge is the profile of a metered call: its name and prices.
type profileCharge struct {
	name    string
	in, out int64
}

// withProfileCharge returns ctx pricing the meter's calls at p's prices.
func withProfileCharge(ctx context.Context, p *profileCharge) context.Context {
	if p == nil {
		return ctx
	}
	return context.WithValue(ctx, profilePriceKey{}, *p)
}

// chargeOf returns the profile charge of a resolved model (nil: the server
// model, priced by Deps.Pricing).
func chargeOf(r modelprofile.Resolved) *profileCharge {
	if r.ProfileID == nil {
		return nil
	}
	return &profileCharge{name: r.Name, in: r.PriceInputPerM, out: r.PriceOutputPerM}
}

// profileName returns the name of p for the ledger (nil: no profile).
func (p *profileCharge) profileName() *string {
	if p == nil {
		return nil
	}
	n := p.name
	return &n
}

// profilePricing prices a call at the profile in its context, else at
// fallback.
type profilePricing struct{ fallback quota.Pricing }

// Price implements quota.Pricing.
func (p profilePricing) Price(ctx context.Context, model string) (int64, int64) {
	if c, ok := ctx.Value(profilePriceKey{}).(profileCharge); ok {
		return c.in, c.out
	}
	if p.fallback == nil {
		return 0, 0
	}
	return p.fallback.Price(ctx, model)
}
