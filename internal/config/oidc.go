package config

import (
	"fmt"
	"net/url"
)

// DefaultOIDCScope is the scope the console asks for when RAGCHAT_OIDC_SCOPE
// is not set.
const DefaultOIDCScope = "openid profile"

// OIDC configures the web console's production sign-in: OpenID Connect,
// authorization code with PKCE (S256), as a public client (no secret). The
// access token it obtains is the console's bearer token, so the issuer's
// tokens must also pass the JWT verification of Auth (RAGCHAT_JWT_JWKS_URL,
// RAGCHAT_JWT_ISSUER, RAGCHAT_JWT_AUDIENCE); docs/DEPLOYMENT.md shows a
// complete setting.
type OIDC struct {
	// Issuer is the OpenID Provider's issuer URL (RAGCHAT_OIDC_ISSUER);
	// its discovery document is Issuer + "/.well-known/openid-configuration".
	// Empty means the sign-in page offers no OpenID Connect.
	Issuer string
	// ClientID is the console's client id at the issuer
	// (RAGCHAT_OIDC_CLIENT_ID), required with Issuer.
	ClientID string
	// Scope is what the console asks for (RAGCHAT_OIDC_SCOPE, default
	// DefaultOIDCScope).
	Scope string
}

// loadOIDC reads and checks the RAGCHAT_OIDC_* variables.
func loadOIDC(e *env) OIDC {
	o := OIDC{
		Issuer:   e.str("RAGCHAT_OIDC_ISSUER", ""),
		ClientID: e.str("RAGCHAT_OIDC_CLIENT_ID", ""),
		Scope:    e.str("RAGCHAT_OIDC_SCOPE", DefaultOIDCScope),
	}
	if o.Issuer == "" {
		if o.ClientID != "" {
			e.errs = append(e.errs, fmt.Errorf("RAGCHAT_OIDC_CLIENT_ID is set without RAGCHAT_OIDC_ISSUER"))
		}
		return o
	}
	if u, err := url.Parse(o.Issuer); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		e.fail("RAGCHAT_OIDC_ISSUER", o.Issuer, "an absolute http or https URL")
	}
	if o.ClientID == "" {
		e.errs = append(e.errs, fmt.Errorf("RAGCHAT_OIDC_ISSUER needs RAGCHAT_OIDC_CLIENT_ID"))
	}
	return o
}
