package gqlid

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/google/uuid"
)

// TestMarshalUUIDMatchesQuotedString checks that the in-place rendering
// writes exactly what quoting uuid.UUID.String writes.
func TestMarshalUUIDMatchesQuotedString(t *testing.T) {
	tests := []struct {
		name string
		id   uuid.UUID
	}{
		{"nil", uuid.Nil},
		{"max", uuid.Max},
		{"v4", uuid.MustParse("0f8fad5b-d9cb-469f-a165-70867728950e")},
		{"v7", uuid.MustParse("01890a5d-ac96-774b-bcce-b302099a8057")},
		{"random", uuid.New()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			MarshalUUID(tt.id).MarshalGQL(&buf)
			if want := strconv.Quote(tt.id.String()); buf.String() != want {
				t.Fatalf("MarshalUUID(%v) wrote %s, want %s", tt.id, buf.String(), want)
			}
			back, err := UnmarshalUUID(buf.String()[1 : buf.Len()-1])
			if err != nil || back != tt.id {
				t.Fatalf("round trip: %v, %v", back, err)
			}
		})
	}
}
