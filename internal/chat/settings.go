package chat

import (
	"context"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// settings returns the viewer's tenant settings with defaults filled in.
func (e *Engine) settings(ctx context.Context) (domain.TenantSettings, error) {
	raw, err := e.tenantSettings(ctx)
	return raw.WithDefaults(), err
}

// tenantSettings returns the viewer's tenant settings as stored, zero
// fields meaning "the default".
func (e *Engine) tenantSettings(ctx context.Context) (domain.TenantSettings, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return domain.TenantSettings{}, err
	}
	t, err := e.client.Tenant.Get(ctx, v.TenantID)
	if err != nil {
		return domain.TenantSettings{}, store.DomainError(err, "tenant")
	}
	return t.Settings, nil
}
