package main

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/ragchat/ragchat/internal/defaults"
)

// User is the one user the issuer signs in, and the claims ragchat reads.
type User struct {
	Subject string
	Tenant  string
	Roles   []string
	Groups  []string
}

// Settings configure an Issuer.
type Settings struct {
	// URL is the issuer identifier (iss) and the base of its endpoints.
	URL string
	// ClientID is the one public client allowed to ask for codes.
	ClientID string
	// Audience is the access token's aud.
	Audience string
	// User is who every authorization approves.
	User User
	// TTL is the tokens' lifetime; codes live one minute.
	TTL time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// grant is an issued authorization code, waiting for its exchange.
type grant struct {
	challenge   string
	redirectURI string
	nonce       string
	scope       string
	expires     time.Time
}

// Issuer is an http.Handler serving the OpenID Connect endpoints.
type Issuer struct {
	s   Settings
	key *rsa.PrivateKey
	kid string
	mux *http.ServeMux

	mu    sync.Mutex
	codes map[string]grant
}

// NewIssuer generates the signing key and returns the issuer.
func NewIssuer(s Settings) (*Issuer, error) {
	if s.URL == "" || s.ClientID == "" || s.Audience == "" || s.User.Subject == "" || s.User.Tenant == "" {
		return nil, errors.New("the issuer needs a URL, a client id, an audience, a subject and a tenant")
	}
	if s.TTL <= 0 {
		s.TTL = time.Hour
	}
	s.Now = defaults.Clock(s.Now)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	i := &Issuer{s: s, key: key, kid: randomString(8), codes: map[string]grant{}}
	i.mux = http.NewServeMux()
	i.mux.HandleFunc("GET /.well-known/openid-configuration", i.discovery)
	i.mux.HandleFunc("GET /jwks", i.jwks)
	i.mux.HandleFunc("GET /authorize", i.authorize)
	i.mux.HandleFunc("POST /token", i.token)
	return i, nil
}

// ServeHTTP serves the endpoints. Every response allows any origin: the
// console fetches discovery, JWKS and tokens from its own origin.
func (i *Issuer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if r.Method == http.MethodOptions {
		w.Header().Set("Access-Control-Allow-Methods", "GET, POST")
		w.Header().Set("Access-Control-Allow-Headers", "content-type, authorization")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	i.mux.ServeHTTP(w, r)
}

// discovery serves the OpenID Provider metadata.
func (i *Issuer) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                i.s.URL,
		"authorization_endpoint":                i.s.URL + "/authorize",
		"token_endpoint":                        i.s.URL + "/token",
		"jwks_uri":                              i.s.URL + "/jwks",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none"},
		"scopes_supported":                      []string{"openid", "profile"},
	})
}

// jwks serves the public signing key.
func (i *Issuer) jwks(w http.ResponseWriter, _ *http.Request) {
	pub := i.key.PublicKey
	writeJSON(w, http.StatusOK, map[string]any{"keys": []map[string]string{{
		"kty": "RSA",
		"use": "sig",
		"alg": "RS256",
		"kid": i.kid,
		"n":   base64.RawURLEncoding.EncodeToString(pub.N.Bytes()),
		"e":   base64.RawURLEncoding.EncodeToString(big.NewInt(int64(pub.E)).Bytes()),
	}}})
}

// authorize approves the fixed user at once and redirects back with a
// code. It requires the registered client and an S256 code challenge.
func (i *Issuer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || (redirect.Scheme != "http" && redirect.Scheme != "https") || redirect.Host == "" {
		http.Error(w, "invalid redirect_uri", http.StatusBadRequest)
		return
	}
	back := func(params url.Values) {
		if s := q.Get("state"); s != "" {
			params.Set("state", s)
		}
		redirect.RawQuery = params.Encode()
		http.Redirect(w, r, redirect.String(), http.StatusFound)
	}
	switch {
	case q.Get("client_id") != i.s.ClientID:
		back(url.Values{"error": {"unauthorized_client"}})
		return
	case q.Get("response_type") != "code":
		back(url.Values{"error": {"unsupported_response_type"}})
		return
	case q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43:
		back(url.Values{"error": {"invalid_request"}, "error_description": {"PKCE with S256 is required"}})
		return
	}
	code := randomString(32)
	i.mu.Lock()
	i.codes[code] = grant{
		challenge:   q.Get("code_challenge"),
		redirectURI: q.Get("redirect_uri"),
		nonce:       q.Get("nonce"),
		scope:       q.Get("scope"),
		expires:     i.s.Now().Add(time.Minute),
	}
	i.mu.Unlock()
	back(url.Values{"code": {code}})
}

// token exchanges a code for tokens (RFC 6749, section 4.1.3): once, before it
// expires, by the same client and redirect URI, with the code_verifier
// whose S256 hash is the code's challenge.
func (i *Issuer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		tokenError(w, "invalid_request", err.Error())
		return
	}
	f := r.PostForm
	if f.Get("grant_type") != "authorization_code" {
		tokenError(w, "unsupported_grant_type", "only authorization_code")
		return
	}
	i.mu.Lock()
	g, ok := i.codes[f.Get("code")]
	delete(i.codes, f.Get("code")) // a code is single-use, even when the exchange fails
	i.mu.Unlock()
	switch {
	case !ok || i.s.Now().After(g.expires):
		tokenError(w, "invalid_grant", "unknown or expired code")
		return
	case f.Get("client_id") != i.s.ClientID:
		tokenError(w, "invalid_client", "unknown client")
		return
	case f.Get("redirect_uri") != g.redirectURI:
		tokenError(w, "invalid_grant", "redirect_uri differs from the authorization request's")
		return
	}
	if err := checkVerifier(g.challenge, f.Get("code_verifier")); err != nil {
		tokenError(w, "invalid_grant", err.Error())
		return
	}
	access, err := i.sign(jwt.MapClaims{
		"aud":    i.s.Audience,
		"tenant": i.s.User.Tenant,
		"roles":  orEmpty(i.s.User.Roles),
		"groups": orEmpty(i.s.User.Groups),
		"scope":  g.scope,
	})
	if err != nil {
		tokenError(w, "server_error", err.Error())
		return
	}
	idClaims := jwt.MapClaims{"aud": i.s.ClientID, "name": i.s.User.Subject}
	if g.nonce != "" {
		idClaims["nonce"] = g.nonce
	}
	id, err := i.sign(idClaims)
	if err != nil {
		tokenError(w, "server_error", err.Error())
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access,
		"id_token":     id,
		"token_type":   "Bearer",
		"expires_in":   int(i.s.TTL.Seconds()),
		"scope":        g.scope,
	})
}

// sign adds iss, sub, iat and exp to c and signs it with RS256 and the
// JWKS key's kid.
func (i *Issuer) sign(c jwt.MapClaims) (string, error) {
	now := i.s.Now()
	c["iss"] = i.s.URL
	c["sub"] = i.s.User.Subject
	c["iat"] = now.Unix()
	c["exp"] = now.Add(i.s.TTL).Unix()
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
	t.Header["kid"] = i.kid
	return t.SignedString(i.key)
}

// tokenError answers the token endpoint's errors (RFC 6749, section 5.2).
func tokenError(w http.ResponseWriter, code, description string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": description})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// orEmpty keeps a nil list a JSON array.
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// randomString returns n random bytes, base64url-encoded.
func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
