package main

import (
	"os"
	"time"

	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/webui"
)

// consoleOptions configures the web console: the development sign-in
// (demo users, short-lived tokens) only when RAGCHAT_ENV=development, and
// OpenID Connect sign-in when RAGCHAT_OIDC_ISSUER is set
// (RAGCHAT_OIDC_CLIENT_ID, RAGCHAT_OIDC_SCOPE; see web/README.md).
func consoleOptions(cfg config.Config) webui.Options {
	var o webui.Options
	if cfg.IsDevelopment() {
		o.DevSignIn = &webui.DevSignIn{Mint: func(user string, roles, groups []string, ttl time.Duration) (string, error) {
			return mintToken(cfg, demo.TenantID, user, roles, groups, ttl)
		}}
	}
	o.OIDC = webui.OIDC{
		Issuer:   os.Getenv("RAGCHAT_OIDC_ISSUER"),
		ClientID: os.Getenv("RAGCHAT_OIDC_CLIENT_ID"),
		Scope:    os.Getenv("RAGCHAT_OIDC_SCOPE"),
	}
	if o.OIDC.Scope == "" {
		o.OIDC.Scope = "openid profile"
	}
	return o
}
