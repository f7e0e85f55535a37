package chat

import (
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/quota"
)

// Model profiles price the usage ledger: an answer on a profile is charged
// at the profile's prices (modelprofile.Resolved.PriceInputPerM and
// PriceOutputPerM) and its entries name the profile; an answer on the
// server's model is charged at Deps.Pricing (RAGCHAT_MODEL_PRICES). The
// price travels in each ledger call (quota.Call.Price), never in a
// context.

// profileCharge is the profile of a metered call: its name and prices.
type profileCharge struct {
	name  string
	price quota.Price
}

// chargeOf returns the profile charge of a resolved model (nil: the server
// model, priced by Deps.Pricing).
func chargeOf(r modelprofile.Resolved) *profileCharge {
	if r.ProfileID == nil {
		return nil
	}
	return &profileCharge{name: r.Name, price: quota.Price{Input: r.PriceInputPerM, Output: r.PriceOutputPerM}}
}

// profileName returns the name of p for the ledger (nil: no profile).
func (p *profileCharge) profileName() *string {
	if p == nil {
		return nil
	}
	n := p.name
	return &n
}

// priced returns call with p's name and prices (the server model's list
// price when p is nil).
func (p *profileCharge) priced(call quota.Call) quota.Call {
	call.Profile, call.Price = p.profileName(), p.pricePtr()
	return call
}

// pricePtr returns p's prices for the ledger (nil: the list price).
func (p *profileCharge) pricePtr() *quota.Price {
	if p == nil {
		return nil
	}
	price := p.price
	return &price
}
