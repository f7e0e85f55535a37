// Package tenantsettings reads, patches, validates and audits a tenant's
// settings (domain.TenantSettings, stored on the tenant row with a
// version). Stored and Effective read the viewer's tenant settings for the
// services that apply them (the conversation engine, support access);
// Service is the admin API: Get and Update, admins only, where Update
// applies a Patch (only the fields it sets change), checks the result
// (domain.TenantSettings.Validate and the model allow-list), writes it with
// one conditional UPDATE on the version, and audits every changed field
// with its old and new value (tenant.settings.updated) in the same
// transaction (docs/API.md, Tenant settings).
package tenantsettings

import (
	"context"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Stored returns the viewer's tenant settings as stored, zero fields
// meaning "the default".
func Stored(ctx context.Context, c *ent.Client) (domain.TenantSettings, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return domain.TenantSettings{}, err
	}
	t, err := c.Tenant.Get(ctx, v.TenantID)
	if err != nil {
		return domain.TenantSettings{}, store.DomainError(err, "tenant")
	}
	return t.Settings, nil
}

// Effective returns the viewer's tenant settings with defaults filled in.
func Effective(ctx context.Context, c *ent.Client) (domain.TenantSettings, error) {
	raw, err := Stored(ctx, c)
	return raw.WithDefaults(), err
}
