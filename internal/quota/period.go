package quota

import (
	"time"

	"github.com/ragchat/ragchat/internal/domain"
)

// PeriodStart is the start of the quota period (UTC) that contains now: its
// day for DAILY, its month for MONTHLY.
func PeriodStart(period string, now time.Time) time.Time {
	now = now.UTC()
	if period == domain.QuotaMonthly {
		return time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
}

// PeriodEnd is when the period that starts at start ends: the quota resets
// then (extensions.resetsAt).
func PeriodEnd(period string, start time.Time) time.Time {
	if period == domain.QuotaMonthly {
		return start.AddDate(0, 1, 0)
	}
	return start.AddDate(0, 0, 1)
}
