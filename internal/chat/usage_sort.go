package chat

import (
	"cmp"
	"slices"
)

// sortUsage orders usage rows by day, then model.
func sortUsage(rows []UsageRow) {
	slices.SortFunc(rows, func(a, b UsageRow) int {
		if c := a.Day.Compare(b.Day); c != 0 {
			return c
		}
		return cmp.Compare(a.Model, b.Model)
	})
}
