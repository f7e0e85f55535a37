package domain

import "time"

// MaxReportSpan bounds the period of the admin reports (feedback, usage,
// costs): 366 days.
const MaxReportSpan = 366 * 24 * time.Hour

// CheckPeriod validates a [from, to) reporting period of at most
// MaxReportSpan: the one check of a report's period, which the resolvers
// pass through (BAD_USER_INPUT naming "to" or "from").
func CheckPeriod(from, to time.Time) error {
	if !from.Before(to) {
		return BadInput("to", "to must be after from")
	}
	if to.Sub(from) > MaxReportSpan {
		return BadInput("from", "the period must not exceed 366 days")
	}
	return nil
}
