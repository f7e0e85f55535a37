package quota

import (
	"context"
	"log/slog"
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/defaults"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/tenantsettings"
)

// Service is the metering that viewers, admins and the reaper reach, beside
// the engine that meters its model calls (docs/API.md, "Quotas and usage";
// internal/quota/README.md): a viewer's standing
// (myusage.go), admins' grants and per-user overrides (usagegrant.go),
// the usage and cost reports (usagereport.go), and the reconciliation of
// reservations a crash left open (reconcile.go). Every read and write goes
// through Ent with the viewer in ctx, or as the metering job for the
// ledger (Meter); the admin role is checked here.
type Service struct {
	client   *ent.Client
	meter    *Meter
	profiles *modelprofile.Service
	log      *slog.Logger
	now      func() time.Time
	lease    time.Duration
}

// Options configure a Service.
type Options struct {
	// Pricing prices the entries the service writes (the engine's
	// chat.Deps.Pricing); nil: everything is free.
	Pricing Pricing
	// Profiles prices the reconciliation's settles of answers on a model
	// profile (the engine's chat.Deps.Models); nil: the list price.
	Profiles *modelprofile.Service
	// Logger receives what is logged (nil: slog.Default()).
	Logger *slog.Logger
	// Now returns the current time (nil: time.Now).
	Now func() time.Time
	// Lease is the engine's attempt lease (chat.Config.LeaseDuration):
	// the reconciliation leaves younger reservations to their runs.
	Lease time.Duration
}

// NewService returns the metering service of db.
func NewService(db *store.DB, o Options) *Service {
	o.Logger = defaults.Logger(o.Logger)
	o.Now = defaults.Clock(o.Now)
	return &Service{client: db.Client, meter: New(db, o.Pricing), profiles: o.Profiles, log: o.Logger, now: o.Now, lease: o.Lease}
}

// settings returns the viewer's tenant settings with defaults filled in.
func (s *Service) settings(ctx context.Context) (domain.TenantSettings, error) {
	return tenantsettings.Effective(ctx, s.client)
}
