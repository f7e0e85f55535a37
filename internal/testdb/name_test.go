package testdb

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDatabaseName(t *testing.T) {
	tests := []struct {
		testName string
		want     string // regexp
	}{
		{"TestPrivacy/postgres/tenant A", `^test_testprivacy_postgres_tenant_a_[0-9a-f]{8}$`},
		{"Test__Weird--name//x", `^test_test_weird_name_x_[0-9a-f]{8}$`},
		{"TestAVeryLongNameThatKeepsGoingAndGoing/sub", `^test_testaverylongnamethatkeepsgoinga_[0-9a-f]{8}$`},
		{"TestEndsInPunctuation/", `^test_testendsinpunctuation_[0-9a-f]{8}$`},
		{"", `^test_[0-9a-f]{8}$`},
		{"Тест", `^test_[0-9a-f]{8}$`},
	}
	for _, tt := range tests {
		t.Run(tt.testName, func(t *testing.T) {
			got := databaseName(tt.testName)
			assert.Regexp(t, regexp.MustCompile(tt.want), got)
			assert.LessOrEqual(t, len(got), 63, "PostgreSQL identifiers are at most 63 bytes")
			assert.NotEqual(t, got, databaseName(tt.testName), "names are random")
		})
	}
}

func TestWithDatabase(t *testing.T) {
	tests := []struct {
		name, base, want, wantErr string
	}{
		{
			name: "url keeps host and query",
			base: "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable",
			want: "postgres://postgres@127.0.0.1:5432/test_x?sslmode=disable",
		},
		{
			name: "url without path",
			base: "postgresql://u:p@db",
			want: "postgresql://u:p@db/test_x",
		},
		{
			name: "key value overrides dbname",
			base: "host=127.0.0.1 dbname=postgres sslmode=disable",
			want: "host=127.0.0.1 dbname=postgres sslmode=disable dbname=test_x",
		},
		{
			name:    "other scheme",
			base:    "mysql://u:secret@db/x",
			wantErr: "unsupported scheme",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := withDatabase(tt.base, "test_x")
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.NotContains(t, err.Error(), "secret", "passwords are redacted")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestRedact(t *testing.T) {
	assert.Equal(t, "postgres://u:xxxxx@h/db", redact("postgres://u:secret@h/db"))
	assert.False(t, strings.Contains(redact("host=h password=secret"), "secret"))
	assert.Equal(t, "host=h", redact("host=h"))
}
