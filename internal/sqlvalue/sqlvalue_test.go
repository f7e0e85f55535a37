package sqlvalue_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/sqlvalue"
)

// TestConversions covers each driver representation of each column kind.
func TestConversions(t *testing.T) {
	id := uuid.New()
	for _, v := range []any{id.String(), []byte(id.String()), id[:]} {
		got, err := sqlvalue.UUID(v)
		require.NoError(t, err)
		require.Equal(t, id, got)
	}
	_, err := sqlvalue.UUID(nil)
	require.Error(t, err)

	require.Equal(t, "a", sqlvalue.Text("a"))
	require.Equal(t, "a", sqlvalue.Text([]byte("a")))
	require.Equal(t, "", sqlvalue.Text(nil))

	for _, v := range []any{int64(7), int32(7), 7, "7", []byte("7")} {
		n, err := sqlvalue.Int(v)
		require.NoError(t, err)
		require.Equal(t, 7, n)
	}
	_, err = sqlvalue.Int(1.5)
	require.Error(t, err)

	tests := []struct {
		v    any
		want bool
	}{{true, true}, {false, false}, {int64(1), true}, {int64(0), false}, {"true", true}, {[]byte("t"), true}, {"f", false}, {nil, false}}
	for _, tt := range tests {
		require.Equal(t, tt.want, sqlvalue.Bool(tt.v), "%#v", tt.v)
	}
}
