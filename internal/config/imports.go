package config

import (
	"time"

	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/portability"
)

// Imports configures importConversations (docs/API.md, "Export and
// import"): each user's import rate, shared by every replica on the
// database, and the imports one instance runs at once and for how long.
// The bounds on an import's content are internal/portability's Limits.
type Imports struct {
	// RatePerMinute and Burst are each user's import rate
	// (RAGCHAT_IMPORT_RATE_PER_MINUTE, RAGCHAT_IMPORT_BURST).
	RatePerMinute float64
	Burst         int
	// Running bounds the imports this instance runs at once
	// (RAGCHAT_MAX_RUNNING_IMPORTS); another is refused with UNAVAILABLE.
	Running int
	// Timeout bounds one import, parsing and writing
	// (RAGCHAT_IMPORT_TIMEOUT).
	Timeout time.Duration
}

// loadImports reads the import settings.
func loadImports(e *env) Imports {
	d := portability.DefaultLimits()
	return Imports{
		RatePerMinute: e.float("RAGCHAT_IMPORT_RATE_PER_MINUTE", portability.DefaultImportRate.PerMinute),
		Burst:         e.integer("RAGCHAT_IMPORT_BURST", portability.DefaultImportRate.Burst, 1),
		Running:       e.integer("RAGCHAT_MAX_RUNNING_IMPORTS", d.Running, 1),
		Timeout:       e.positive("RAGCHAT_IMPORT_TIMEOUT", d.Timeout),
	}
}

// Portability returns the export and import service's options, its
// imports metered by limiter (askrate.NewDBLimiter on the database, so
// that every replica shares each user's rate).
func (i Imports) Portability(limiter askrate.Limiter) portability.Options {
	return portability.Options{
		Limits:     portability.Limits{Running: i.Running, Timeout: i.Timeout},
		Limiter:    limiter,
		ImportRate: askrate.Rate{PerMinute: i.RatePerMinute, Burst: i.Burst},
	}
}
