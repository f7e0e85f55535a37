package quota

import (
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/modelprofile"
)

// Charge is whom an answer's model calls are charged to and at what price:
// the explicit value the engine meters an answer, its reservation and its
// side calls with (answer.go, sidecalls.go). The engine builds it from the
// attempt and its resolved model; nothing of it comes from a context.
type Charge struct {
	TenantID, UserID string
	AttemptID        uuid.UUID
	// Model is the chat model the calls name; an answer's own entry names
	// the model that answered instead.
	Model string
	// Profile and Price are the model profile's name and prices (nil: the
	// server's model, at the meter's price of the model).
	Profile *string
	Price   *Price
	// Quota is the tenant's token quota.
	Quota domain.TokenQuota
}

// Profiled returns ch on r's model profile: its name, its prices and,
// when it names one, its model. A resolved model without a profile (the
// server's) leaves ch as it is.
func (ch Charge) Profiled(r modelprofile.Resolved) Charge {
	if r.ProfileID == nil {
		return ch
	}
	name := r.Name
	ch.Profile, ch.Price = &name, &Price{Input: r.PriceInputPerM, Output: r.PriceOutputPerM}
	if r.Model != "" {
		ch.Model = r.Model
	}
	return ch
}

// Hard reports whether q refuses what would pass it (a HARD quota).
func Hard(q domain.TokenQuota) bool {
	q = q.WithDefaults()
	return q.Enabled() && q.Kind == domain.QuotaHard
}

// call is the ledger call of ch's call of purpose, naming model.
func (ch Charge) call(purpose usageentry.Purpose, model string) Call {
	id := ch.AttemptID
	return Call{TenantID: ch.TenantID, UserID: ch.UserID, AttemptID: &id, Purpose: purpose, Model: model,
		Profile: ch.Profile, Price: ch.Price}
}
