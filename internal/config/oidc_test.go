package config_test

import (
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/config"
)

// TestOIDCSettings: RAGCHAT_OIDC_* are read into Config.OIDC with the
// default scope, and an incomplete or malformed setting is refused at
// start rather than offered on the sign-in page.
func TestOIDCSettings(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    config.OIDC
		wantErr string
	}{
		{name: "unset", env: nil, want: config.OIDC{Scope: config.DefaultOIDCScope}},
		{
			name: "issuer and client",
			env:  map[string]string{"RAGCHAT_OIDC_ISSUER": "https://idp.example/realms/acme", "RAGCHAT_OIDC_CLIENT_ID": "console"},
			want: config.OIDC{Issuer: "https://idp.example/realms/acme", ClientID: "console", Scope: config.DefaultOIDCScope},
		},
		{
			name: "a scope",
			env:  map[string]string{"RAGCHAT_OIDC_ISSUER": "http://127.0.0.1:9000", "RAGCHAT_OIDC_CLIENT_ID": "console", "RAGCHAT_OIDC_SCOPE": "openid email"},
			want: config.OIDC{Issuer: "http://127.0.0.1:9000", ClientID: "console", Scope: "openid email"},
		},
		{name: "issuer without client", env: map[string]string{"RAGCHAT_OIDC_ISSUER": "https://idp.example"}, wantErr: "RAGCHAT_OIDC_CLIENT_ID"},
		{name: "client without issuer", env: map[string]string{"RAGCHAT_OIDC_CLIENT_ID": "console"}, wantErr: "RAGCHAT_OIDC_ISSUER"},
		{name: "relative issuer", env: map[string]string{"RAGCHAT_OIDC_ISSUER": "idp.example", "RAGCHAT_OIDC_CLIENT_ID": "console"}, wantErr: "RAGCHAT_OIDC_ISSUER"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(tt.env)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.OIDC != tt.want {
				t.Fatalf("OIDC = %+v, want %+v", c.OIDC, tt.want)
			}
		})
	}
}
