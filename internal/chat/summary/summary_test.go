package summary

import (
	"testing"

	"github.com/ragchat/ragchat/internal/domain"
)

// TestCarriesPrevious: a summary lineage is at most maxRegen+1 writes; the
// write after that does not carry the previous summary.
func TestCarriesPrevious(t *testing.T) {
	tests := []struct {
		maxRegen int
		want     []bool // for versions 0, 1, 2, …
	}{
		{1, []bool{false, true, false, true, false}},
		{2, []bool{false, true, true, false, true, true, false}},
		{20, append(append([]bool{false}, repeatBool(true, 20)...), false, true)},
		{0, []bool{false, false, false}},
	}
	for _, tc := range tests {
		for v, want := range tc.want {
			if got := carriesPrevious(v, tc.maxRegen); got != want {
				t.Errorf("carriesPrevious(%d, %d) = %v, want %v", v, tc.maxRegen, got, want)
			}
		}
	}
}

func repeatBool(b bool, n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = b
	}
	return out
}

// TestFoldDue: the completion's count of USER messages after the summary's
// coverage starts the summariser exactly when foldOnce would fold.
func TestFoldDue(t *testing.T) {
	st := domain.TenantSettings{HistoryRounds: 4, SummaryTriggerRounds: 2}
	tests := []struct {
		pending int
		want    bool
	}{
		{0, false}, {4, false}, {6, false}, {7, true}, {20, true},
	}
	for _, tc := range tests {
		if got := Due(tc.pending, st); got != tc.want {
			t.Errorf("Due(%d) = %v, want %v", tc.pending, got, tc.want)
		}
	}
}
