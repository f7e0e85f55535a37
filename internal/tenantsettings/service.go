package tenantsettings

import (
	"context"
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/tenant"
	"github.com/ragchat/ragchat/internal/audit"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// retries bounds how often an update without an expected
// version starts over after a concurrent settings change.
const retries = 5

// State is a tenant's effective settings (defaults filled in) and their
// version, for the admin API.
type State struct {
	Settings  domain.TenantSettings
	Version   int
	UpdatedAt time.Time
}

// Service is the admin API of tenant settings. It is safe for concurrent
// use.
type Service struct {
	client      *ent.Client
	serverModel string
}

// New returns the service on c. serverModel is the chat model answers use
// for tenants that name none (chat.Engine.ServerChatModel), which the
// model allow-list must admit.
func New(c *ent.Client, serverModel string) *Service {
	return &Service{client: c, serverModel: serverModel}
}

// Get returns the viewer's tenant settings. Admins only (FORBIDDEN
// otherwise); the Ent privacy policy keeps it to the viewer's own tenant.
func (s *Service) Get(ctx context.Context) (State, error) {
	v, err := viewer.RequireAdmin(ctx)
	if err != nil {
		return State{}, err
	}
	t, err := s.client.Tenant.Get(ctx, v.TenantID)
	if err != nil {
		return State{}, store.DomainError(err, "tenant")
	}
	return stateOf(t), nil
}

// stateOf is t's settings as the admin API shows them.
func stateOf(t *ent.Tenant) State {
	return State{Settings: t.Settings.WithDefaults(), Version: t.SettingsVersion, UpdatedAt: t.UpdatedAt}
}

// Update applies patch to the viewer's tenant settings: only
// the fields the patch sets change. Admins only. The result, defaults
// filled in, must pass domain.TenantSettings.Validate and the model
// allow-list (checkModels), else BAD_USER_INPUT with extensions.field and
// nothing is written. With expected set, settings at another version are
// CONFLICT with extensions.currentVersion. The update is one conditional
// UPDATE ... WHERE settings_version = ?, in the same transaction as the
// audit event (tenant.settings.updated) that lists every changed field
// with its old and new value. A patch that changes nothing writes nothing.
// The settings stored afterwards are explicit (defaults filled in).
func (s *Service) Update(ctx context.Context, patch Patch, expected *int) (State, error) {
	v, err := viewer.RequireAdmin(ctx)
	if err != nil {
		return State{}, err
	}
	if err := patch.check(); err != nil {
		return State{}, err
	}
	for try := 0; ; try++ {
		t, err := s.client.Tenant.Get(ctx, v.TenantID)
		if err != nil {
			return State{}, store.DomainError(err, "tenant")
		}
		if expected != nil && t.SettingsVersion != *expected {
			return State{}, settingsConflict(t.SettingsVersion, *expected)
		}
		old := t.Settings.WithDefaults()
		next := patch.apply(old).WithDefaults()
		if err := next.Validate(); err != nil {
			return State{}, err
		}
		if err := s.checkModels(next, patch); err != nil {
			return State{}, err
		}
		changes := settingsChanges(old, next)
		if len(changes) == 0 {
			return stateOf(t), nil
		}
		done, err := s.save(ctx, t, next, changes)
		switch {
		case err != nil:
			return State{}, err
		case done:
			t, err = s.client.Tenant.Get(ctx, v.TenantID)
			if err != nil {
				return State{}, store.DomainError(err, "tenant")
			}
			return stateOf(t), nil
		case try >= retries:
			return State{}, domain.Errorf(domain.CodeConflict, "the tenant settings keep changing; try again").
				With("currentVersion", t.SettingsVersion)
		}
		// Another update got there first: read again and decide again;
		// with an expected version, the next read reports the conflict.
	}
}

// save writes next over t's settings if they are still at
// t's version, with the audit event, in one transaction. It returns false
// when the version moved.
func (s *Service) save(ctx context.Context, t *ent.Tenant, next domain.TenantSettings, changes []settingChange) (bool, error) {
	tx, err := s.client.Tx(ctx)
	if err != nil {
		return false, store.DomainError(err, "tenant")
	}
	n, err := tx.Tenant.Update().
		Where(tenant.ID(t.ID), tenant.SettingsVersion(t.SettingsVersion)).
		SetSettings(next).AddSettingsVersion(1).
		Save(ctx)
	if err != nil {
		return false, rollback(tx, store.DomainError(err, "tenant"))
	}
	if n == 0 {
		return false, rollback(tx, nil)
	}
	err = audit.Write(ctx, tx.AuditEvent, audit.Event{
		Action: "tenant.settings.updated", TargetType: "Tenant", TargetID: t.ID,
		Metadata: changeMetadata(changes, t.SettingsVersion+1),
	})
	if err != nil {
		return false, rollback(tx, store.DomainError(err, "audit event"))
	}
	if err := tx.Commit(); err != nil {
		return false, store.DomainError(err, "tenant")
	}
	return true, nil
}

// checkModels enforces the model allow-list where the tenant chooses a
// model: the chat model answers would use (the tenant's defaultModel, or
// the server's when it is empty) must be on a non-empty allowedModels. The
// API offers no per-request model choice, so this is the one place a model
// is chosen. The error names defaultModel when the patch set it, else
// allowedModels.
func (s *Service) checkModels(st domain.TenantSettings, patch Patch) error {
	if len(st.AllowedModels) == 0 {
		return nil
	}
	m := st.DefaultModel
	if m == "" {
		m = s.serverModel
	}
	for _, a := range st.AllowedModels {
		if a == m {
			return nil
		}
	}
	field := "allowedModels"
	if patch.DefaultModel != nil {
		field = "defaultModel"
	}
	return domain.Errorf(domain.CodeBadUserInput, "invalid tenant setting %s: the chat model %q is not in allowedModels %v", field, m, st.AllowedModels).
		With("field", field)
}

// rollback rolls tx back and returns err, so that the original error is
// what the caller sees.
func rollback(tx *ent.Tx, err error) error {
	_ = tx.Rollback()
	return err
}

// settingsConflict is the CONFLICT of a stale expectedVersion.
func settingsConflict(current, expected int) error {
	return domain.Errorf(domain.CodeConflict,
		"the tenant settings changed since version %d (they are at version %d); reload them and try again", expected, current).
		With("currentVersion", current).With("expectedVersion", expected)
}

// ViewerPolicy is the part of the settings every viewer of the tenant may
// read, because it decides what the viewer can do: the temporary-chat
// policy and how long a temporary chat lasts.
type ViewerPolicy struct {
	TemporaryChats         domain.TemporaryChats
	TemporaryChatRetention time.Duration
}

// ForViewer returns the viewer's ViewerPolicy, with defaults filled in.
// Any viewer of the tenant may read it; the Ent privacy policy keeps it to
// the viewer's own tenant.
func (s *Service) ForViewer(ctx context.Context) (ViewerPolicy, error) {
	st, err := Effective(ctx, s.client)
	if err != nil {
		return ViewerPolicy{}, err
	}
	return ViewerPolicy{TemporaryChats: st.TemporaryChats, TemporaryChatRetention: st.TemporaryChatRetention.Duration}, nil
}
