package auth_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/auth"
)

func TestBearerToken(t *testing.T) {
	tests := []struct {
		header string
		want   string
		ok     bool
	}{
		{"Bearer abc.def.ghi", "abc.def.ghi", true},
		{"bearer abc", "abc", true},
		{"BEARER abc", "abc", true},
		{"  Bearer   abc  ", "abc", true},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Bearer a b", "", false},
		{"Basic dXNlcjpwYXNz", "", false},
		{"Bearerabc", "", false},
		{"abc.def.ghi", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			got, ok := auth.BearerToken(tt.header)
			require.Equal(t, tt.ok, ok)
			require.Equal(t, tt.want, got)
		})
	}
}
