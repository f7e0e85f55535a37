package chat

import (
	"context"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/tenantsettings"
)

// settings returns the viewer's tenant settings with defaults filled in.
func (e *Engine) settings(ctx context.Context) (domain.TenantSettings, error) {
	return tenantsettings.Effective(ctx, e.client)
}

// tenantSettings returns the viewer's tenant settings as stored, zero
// fields meaning "the default".
func (e *Engine) tenantSettings(ctx context.Context) (domain.TenantSettings, error) {
	return tenantsettings.Stored(ctx, e.client)
}
