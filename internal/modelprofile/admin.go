package modelprofile

import (
	"context"
	"fmt"
	"strconv"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/modelprofile"
	"github.com/ragchat/ragchat/internal/audit"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Input is a profile's fields as an admin sets them; nil fields are left
// as they are (update) or take their defaults (create).
type Input struct {
	Name                   *string
	Endpoint               *string
	Model                  *string
	ContextWindow          *int
	TemperatureMin         *float64
	TemperatureMax         *float64
	TemperatureDefault     *float64
	TopPMin                *float64
	TopPMax                *float64
	TopPDefault            *float64
	MaxAnswerTokensMax     *int
	MaxAnswerTokensDefault *int
	PriceInputPerM         *int64
	PriceOutputPerM        *int64
	Enabled                *bool
	IsDefault              *bool
	// AllowedGroups, when not nil, replaces the groups (empty: every
	// member of the tenant).
	AllowedGroups *[]string
}

// profileValues is a profile's settable fields, checked as a whole.
type profileValues struct {
	name, endpoint, model      string
	window                     int
	tMin, tMax, tDef           float64
	pMin, pMax, pDef           float64
	maxTokensMax, maxTokensDef int
	priceIn, priceOut          int64
	enabled, isDefault         bool
	groups                     []string
}

// defaults are the values of a new profile's unset fields.
func defaults() profileValues {
	return profileValues{tMin: 0, tMax: 2, tDef: 0.2, pMin: 0, pMax: 1, pDef: 1, enabled: true}
}

// valuesOf returns p's values.
func valuesOf(p *ent.ModelProfile) profileValues {
	return profileValues{
		name: p.Name, endpoint: p.Endpoint, model: p.Model, window: p.ContextWindow,
		tMin: p.TemperatureMin, tMax: p.TemperatureMax, tDef: p.TemperatureDefault,
		pMin: p.TopPMin, pMax: p.TopPMax, pDef: p.TopPDefault,
		maxTokensMax: p.MaxAnswerTokensMax, maxTokensDef: p.MaxAnswerTokensDefault,
		priceIn: p.PriceInputPerM, priceOut: p.PriceOutputPerM,
		enabled: p.Enabled, isDefault: p.IsDefault, groups: p.AllowedGroups,
	}
}

// apply returns v with in's fields set.
func (v profileValues) apply(in Input) profileValues {
	set := func(dst *string, src *string) {
		if src != nil {
			*dst = trimName(*src)
		}
	}
	set(&v.name, in.Name)
	set(&v.endpoint, in.Endpoint)
	set(&v.model, in.Model)
	setP(&v.window, in.ContextWindow)
	setP(&v.tMin, in.TemperatureMin)
	setP(&v.tMax, in.TemperatureMax)
	setP(&v.tDef, in.TemperatureDefault)
	setP(&v.pMin, in.TopPMin)
	setP(&v.pMax, in.TopPMax)
	setP(&v.pDef, in.TopPDefault)
	setP(&v.maxTokensMax, in.MaxAnswerTokensMax)
	setP(&v.maxTokensDef, in.MaxAnswerTokensDefault)
	setP(&v.priceIn, in.PriceInputPerM)
	setP(&v.priceOut, in.PriceOutputPerM)
	setP(&v.enabled, in.Enabled)
	setP(&v.isDefault, in.IsDefault)
	if in.AllowedGroups != nil {
		v.groups = append([]string{}, (*in.AllowedGroups)...)
	}
	return v
}

func setP[T any](dst *T, src *T) {
	if src != nil {
		*dst = *src
	}
}

// validate refuses the first invalid field, naming it.
func (s *Service) validate(v profileValues) error {
	bad := func(field, format string, args ...any) error {
		return domain.Errorf(domain.CodeBadUserInput, "invalid model profile %s: %s", field, fmt.Sprintf(format, args...)).With("field", field)
	}
	switch {
	case v.name == "" || len(v.name) > 64:
		return bad("name", "must be 1 to 64 bytes")
	case v.model == "" || len(v.model) > 128:
		return bad("model", "must be 1 to 128 bytes")
	case v.endpoint == "":
		return bad("endpoint", "is required")
	case s.endpoints[v.endpoint] == nil:
		return bad("endpoint", "%q is not configured on this server (configured: %v)", v.endpoint, s.endpoints.Names())
	case v.window < 0:
		return bad("contextWindow", "must not be negative")
	case v.tMin < 0 || v.tMax > serverTemperatureMax || v.tMin > v.tMax:
		return bad("temperatureMax", "the temperature bounds must satisfy 0 <= min <= max <= 2")
	case v.tDef < v.tMin || v.tDef > v.tMax:
		return bad("temperatureDefault", "%g is outside [%g, %g]", v.tDef, v.tMin, v.tMax)
	case v.pMin < 0 || v.pMax > serverTopPMax || v.pMin > v.pMax:
		return bad("topPMax", "the topP bounds must satisfy 0 <= min <= max <= 1")
	case v.pDef < v.pMin || v.pDef > v.pMax:
		return bad("topPDefault", "%g is outside [%g, %g]", v.pDef, v.pMin, v.pMax)
	case v.maxTokensMax < 0:
		return bad("maxAnswerTokensMax", "must not be negative")
	case v.maxTokensDef < 0 || (v.maxTokensMax > 0 && v.maxTokensDef > v.maxTokensMax):
		return bad("maxAnswerTokensDefault", "must be between 0 and maxAnswerTokensMax")
	case v.priceIn < 0:
		return bad("priceInputPerM", "must not be negative")
	case v.priceOut < 0:
		return bad("priceOutputPerM", "must not be negative")
	case len(v.groups) > 64:
		return bad("allowedGroups", "at most 64 groups")
	}
	for _, g := range v.groups {
		if g == "" || len(g) > 128 {
			return bad("allowedGroups", "a group is empty or longer than 128 bytes")
		}
	}
	return nil
}

// Create adds a profile (admins only: FORBIDDEN otherwise), with an audit
// event (model_profile.created). A name the tenant already uses is
// BAD_USER_INPUT naming "name". With isDefault, the tenant's other
// profiles stop being the default.
func (s *Service) Create(ctx context.Context, in Input) (*ent.ModelProfile, error) {
	if _, err := viewer.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	v := defaults().apply(in)
	if err := s.validate(v); err != nil {
		return nil, err
	}
	var out *ent.ModelProfile
	err := s.inTx(ctx, func(tx *ent.Tx) error {
		if err := s.nameFree(ctx, tx, v.name, nil); err != nil {
			return err
		}
		if v.isDefault {
			if err := clearDefault(ctx, tx, nil); err != nil {
				return err
			}
		}
		p, err := saveAudited(ctx, tx, tx.ModelProfile.Create(), v, "model_profile.created")
		out = p
		return err
	})
	return out, err
}

// Update changes a profile's given fields (admins only), validated as a
// whole, with an audit event (model_profile.updated). An unknown id or
// another tenant's is NOT_FOUND.
func (s *Service) Update(ctx context.Context, id uuid.UUID, in Input) (*ent.ModelProfile, error) {
	if _, err := viewer.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	var out *ent.ModelProfile
	err := s.inTx(ctx, func(tx *ent.Tx) error {
		cur, err := tx.ModelProfile.Get(ctx, id)
		if err != nil {
			return store.DomainError(err, "model profile")
		}
		v := valuesOf(cur).apply(in)
		if err := s.validate(v); err != nil {
			return err
		}
		if err := s.nameFree(ctx, tx, v.name, &id); err != nil {
			return err
		}
		if v.isDefault && !cur.IsDefault {
			if err := clearDefault(ctx, tx, &id); err != nil {
				return err
			}
		}
		u := tx.ModelProfile.UpdateOneID(id)
		if v.groups == nil {
			u.ClearAllowedGroups()
		}
		p, err := saveAudited(ctx, tx, u, v, "model_profile.updated")
		out = p
		return err
	})
	return out, err
}

// Delete removes a profile (admins only), with an audit event
// (model_profile.deleted). Attempts that used it keep its id and model
// name; conversations that chose it fall back to the tenant default.
func (s *Service) Delete(ctx context.Context, id uuid.UUID) (uuid.UUID, error) {
	if _, err := viewer.RequireAdmin(ctx); err != nil {
		return uuid.Nil, err
	}
	err := s.inTx(ctx, func(tx *ent.Tx) error {
		p, err := tx.ModelProfile.Get(ctx, id)
		if err != nil {
			return store.DomainError(err, "model profile")
		}
		if err := tx.ModelProfile.DeleteOneID(id).Exec(ctx); err != nil {
			return store.DomainError(err, "model profile")
		}
		return auditChange(ctx, tx, "model_profile.deleted", p)
	})
	return id, err
}

// profileSave is a profile's create or update builder.
type profileSave interface {
	Mutation() *ent.ModelProfileMutation
	Save(context.Context) (*ent.ModelProfile, error)
}

// saveAudited sets every value of v on b (setAll), saves it and records
// the audit event event of the saved profile, all in tx.
func saveAudited(ctx context.Context, tx *ent.Tx, b profileSave, v profileValues, event string) (*ent.ModelProfile, error) {
	setAll(b.Mutation(), v)
	p, err := b.Save(ctx)
	if err != nil {
		return nil, store.DomainError(err, "model profile")
	}
	return p, auditChange(ctx, tx, event, p)
}

// setAll sets every value of v on m.
func setAll(m *ent.ModelProfileMutation, v profileValues) {
	m.SetName(v.name)
	m.SetEndpoint(v.endpoint)
	m.SetModel(v.model)
	m.SetContextWindow(v.window)
	m.SetTemperatureMin(v.tMin)
	m.SetTemperatureMax(v.tMax)
	m.SetTemperatureDefault(v.tDef)
	m.SetTopPMin(v.pMin)
	m.SetTopPMax(v.pMax)
	m.SetTopPDefault(v.pDef)
	m.SetMaxAnswerTokensMax(v.maxTokensMax)
	m.SetMaxAnswerTokensDefault(v.maxTokensDef)
	m.SetPriceInputPerM(v.priceIn)
	m.SetPriceOutputPerM(v.priceOut)
	m.SetEnabled(v.enabled)
	m.SetIsDefault(v.isDefault)
	if v.groups != nil {
		m.SetAllowedGroups(v.groups)
	}
}

// nameFree refuses a name another profile of the tenant (other than
// except) already has.
func (s *Service) nameFree(ctx context.Context, tx *ent.Tx, name string, except *uuid.UUID) error {
	q := tx.ModelProfile.Query().Where(modelprofile.Name(name))
	if except != nil {
		q.Where(modelprofile.IDNEQ(*except))
	}
	taken, err := q.Exist(ctx)
	if err != nil {
		return store.DomainError(err, "model profile")
	}
	if taken {
		return domain.Errorf(domain.CodeBadUserInput, "invalid model profile name: %q is taken", name).With("field", "name")
	}
	return nil
}

// clearDefault makes every profile but except stop being the default.
func clearDefault(ctx context.Context, tx *ent.Tx, except *uuid.UUID) error {
	u := tx.ModelProfile.Update().Where(modelprofile.IsDefault(true))
	if except != nil {
		u.Where(modelprofile.IDNEQ(*except))
	}
	if _, err := u.SetIsDefault(false).Save(ctx); err != nil {
		return store.DomainError(err, "model profile")
	}
	return nil
}

// auditChange writes the audit event of a change to p.
func auditChange(ctx context.Context, tx *ent.Tx, action string, p *ent.ModelProfile) error {
	err := audit.Write(ctx, tx.AuditEvent, audit.Event{
		Action: action, TargetType: "ModelProfile", TargetID: p.ID.String(),
		Metadata: map[string]string{
			"name": p.Name, "endpoint": p.Endpoint, "model": p.Model,
			"enabled": strconv.FormatBool(p.Enabled), "isDefault": strconv.FormatBool(p.IsDefault),
			"priceInputPerM": strconv.FormatInt(p.PriceInputPerM, 10), "priceOutputPerM": strconv.FormatInt(p.PriceOutputPerM, 10),
		},
	})
	if err != nil {
		return store.DomainError(err, "audit event")
	}
	return nil
}

// inTx runs fn in a transaction, committing when it returns nil.
func (s *Service) inTx(ctx context.Context, fn func(*ent.Tx) error) error {
	tx, err := s.client.Tx(ctx)
	if err != nil {
		return store.DomainError(err, "model profile")
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return store.DomainError(err, "model profile")
	}
	return nil
}
