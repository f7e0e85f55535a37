package attachment

import (
	"context"

	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/viewer"
)

// LimitUploadRate names the upload rate in RATE_LIMITED errors.
const LimitUploadRate = "uploadRate"

// DefaultUploadRate is each user's upload rate when none is configured:
// 20 files a minute, 10 at once.
var DefaultUploadRate = askrate.Rate{PerMinute: 20, Burst: 10}

// uploadKey names v's bucket of the upload rate: askrate's buckets are
// one table, and the upload buckets sit apart from the ask buckets (and
// from the share-read buckets) under their own tenant key.
func uploadKey(v *viewer.Viewer) string {
	return askrate.Key("upload", v.TenantID+"\x1f"+v.UserID)
}

// takeUpload takes one upload of v's rate (Options.UploadRate, metered
// by Options.Limiter, shared by every instance on the database), or
// returns RATE_LIMITED with retryAfterSeconds and limit uploadRate.
func (s *Service) takeUpload(ctx context.Context, v *viewer.Viewer) error {
	return askrate.Take(ctx, s.opts.Limiter, uploadKey(v), s.opts.UploadRate, "uploads", LimitUploadRate)
}

// giveUpload gives back the upload takeUpload took for a file the
// instance refused for its own reasons (a full queue).
func (s *Service) giveUpload(ctx context.Context, v *viewer.Viewer) {
	if s.opts.Limiter != nil {
		s.opts.Limiter.Give(context.WithoutCancel(ctx), uploadKey(v), s.opts.UploadRate)
	}
}
