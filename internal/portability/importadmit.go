package portability

import (
	"context"
	"errors"
	"math"

	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

// An import is admitted before its content is parsed: it takes one of the
// instance's Limits.Running slots (none free: UNAVAILABLE at once, so
// imports never queue up behind one another or take the cores asks need),
// then one import of the user's rate (RATE_LIMITED), and it runs under
// Limits.Timeout.

// runningRetrySeconds is the retry hint of an import refused for want of
// a slot.
const runningRetrySeconds = 5

// admit takes a running slot and one import of v's rate, and returns the
// function that gives the slot back.
func (s *Service) admit(ctx context.Context, v *viewer.Viewer) (release func(), err error) {
	select {
	case s.running <- struct{}{}:
	default:
		return nil, domain.Errorf(domain.CodeUnavailable, "the server is running as many imports as it can; retry shortly").
			With("retryAfterSeconds", runningRetrySeconds).With("limit", LimitRunningImports)
	}
	release = func() { <-s.running }
	if err := s.takeRate(ctx, v); err != nil {
		release()
		return nil, err
	}
	return release, nil
}

// importKey names v's bucket of the import rate: askrate's buckets are
// one table, and the import buckets sit apart from the others (asks,
// uploads, share reads) under their own tenant key.
func importKey(v *viewer.Viewer) string { return askrate.Key("import", v.TenantID+"\x1f"+v.UserID) }

// takeRate takes one import of v's rate, or returns RATE_LIMITED with
// extensions.retryAfterSeconds. Without a limiter every import passes.
func (s *Service) takeRate(ctx context.Context, v *viewer.Viewer) error {
	return askrate.Take(ctx, s.limiter, importKey(v), s.rate, "imports", LimitImportRate)
}

// timedOut words the failure of an import that ran out of
// Limits.Timeout (its context, under the request's parent, ended by its
// own deadline); other errors pass unchanged.
func (s *Service) timedOut(parent, ctx context.Context, err error) error {
	if err == nil || parent.Err() != nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err
	}
	secs := int(math.Ceil(s.limits.Timeout.Seconds()))
	return domain.Errorf(domain.CodeUnavailable, "the import did not finish within %d s and wrote nothing; import fewer conversations at once", secs).
		With("limit", LimitImportTime).With("max", secs)
}
