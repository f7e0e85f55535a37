package main

import (
	"time"

	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/webui"
)

// consoleOptions configures the web console: the development sign-in
// (demo users, short-lived tokens) only when RAGCHAT_ENV=development, and
// OpenID Connect sign-in when RAGCHAT_OIDC_ISSUER is set (config.OIDC;
// see docs/DEPLOYMENT.md).
func consoleOptions(cfg config.Config) webui.Options {
	var o webui.Options
	if cfg.IsDevelopment() {
		o.DevSignIn = &webui.DevSignIn{Mint: func(user string, roles, groups []string, ttl time.Duration) (string, error) {
			return mintToken(cfg, demo.TenantID, user, roles, groups, ttl)
		}}
	}
	o.OIDC = webui.OIDC{Issuer: cfg.OIDC.Issuer, ClientID: cfg.OIDC.ClientID, Scope: cfg.OIDC.Scope}
	return o
}
