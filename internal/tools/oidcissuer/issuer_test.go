package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/auth"
)

const (
	testURL      = "http://issuer.test"
	testClient   = "console"
	testRedirect = "http://console.test/signin"
	// testVerifier is a valid code_verifier (43 characters).
	testVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
)

func newTestIssuer(t *testing.T) *Issuer {
	t.Helper()
	i, err := NewIssuer(Settings{
		URL: testURL, ClientID: testClient, Audience: "ragchat",
		User: User{Subject: "oidc-user", Tenant: "demo", Roles: []string{"member"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return i
}

func challengeOf(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// authorizeCode runs the authorize endpoint and returns the code it
// redirected back with.
func authorizeCode(t *testing.T, i *Issuer, challenge string) string {
	t.Helper()
	q := url.Values{
		"client_id": {testClient}, "response_type": {"code"}, "redirect_uri": {testRedirect},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"s1"}, "scope": {"openid"},
	}
	rec := httptest.NewRecorder()
	i.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/authorize?"+q.Encode(), nil))
	if rec.Code != http.StatusFound {
		t.Fatalf("authorize: status %d", rec.Code)
	}
	loc, err := url.Parse(rec.Header().Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	if loc.Query().Get("state") != "s1" || loc.Query().Get("code") == "" {
		t.Fatalf("authorize redirected to %s", loc)
	}
	return loc.Query().Get("code")
}

// exchange posts the token request and returns the status and body.
func exchange(i *Issuer, form url.Values) (int, map[string]any) {
	req := httptest.NewRequest(http.MethodPost, "/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	i.ServeHTTP(rec, req)
	var body map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &body)
	return rec.Code, body
}

// TestTokenEndpointChecksPKCE: the token endpoint hands out tokens only for
// the code_verifier whose S256 hash is the code's challenge, and a code is
// single-use.
func TestTokenEndpointChecksPKCE(t *testing.T) {
	tests := []struct {
		name     string
		verifier string
		mutate   func(url.Values)
		want     string // "" means tokens; else the OAuth error code
	}{
		{name: "the right verifier", verifier: testVerifier},
		{name: "another valid verifier", verifier: strings.Repeat("a", 43), want: "invalid_grant"},
		{name: "no verifier", verifier: "", want: "invalid_grant"},
		{name: "the challenge itself as verifier", verifier: challengeOf(testVerifier), want: "invalid_grant"},
		{name: "a verifier that is too short", verifier: testVerifier[:42], want: "invalid_grant"},
		{name: "a verifier with invalid characters", verifier: testVerifier[:42] + "+", want: "invalid_grant"},
		{name: "another redirect URI", verifier: testVerifier, mutate: func(f url.Values) { f.Set("redirect_uri", "http://evil.test/") }, want: "invalid_grant"},
		{name: "another client", verifier: testVerifier, mutate: func(f url.Values) { f.Set("client_id", "other") }, want: "invalid_client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := newTestIssuer(t)
			code := authorizeCode(t, i, challengeOf(testVerifier))
			form := url.Values{
				"grant_type": {"authorization_code"}, "code": {code}, "client_id": {testClient},
				"redirect_uri": {testRedirect}, "code_verifier": {tt.verifier},
			}
			if tt.mutate != nil {
				tt.mutate(form)
			}
			status, body := exchange(i, form)
			if tt.want != "" {
				if status != http.StatusBadRequest || body["error"] != tt.want || body["access_token"] != nil {
					t.Fatalf("got %d %v, want 400 %s and no token", status, body, tt.want)
				}
			} else if status != http.StatusOK || body["access_token"] == nil || body["id_token"] == nil {
				t.Fatalf("got %d %v, want tokens", status, body)
			}
			// Whatever the outcome, the code is spent.
			form.Set("code_verifier", testVerifier)
			form.Set("redirect_uri", testRedirect)
			form.Set("client_id", testClient)
			if status, body := exchange(i, form); status != http.StatusBadRequest || body["error"] != "invalid_grant" {
				t.Fatalf("second exchange of the code: %d %v, want invalid_grant", status, body)
			}
		})
	}
}

// TestAuthorizeRequiresS256: a request without an S256 challenge gets no
// code.
func TestAuthorizeRequiresS256(t *testing.T) {
	tests := []struct {
		name   string
		method string
		chal   string
	}{
		{"plain method", "plain", challengeOf(testVerifier)},
		{"no method", "", challengeOf(testVerifier)},
		{"no challenge", "S256", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := newTestIssuer(t)
			q := url.Values{
				"client_id": {testClient}, "response_type": {"code"}, "redirect_uri": {testRedirect},
				"code_challenge": {tt.chal}, "code_challenge_method": {tt.method},
			}
			rec := httptest.NewRecorder()
			i.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/authorize?"+q.Encode(), nil))
			loc, _ := url.Parse(rec.Header().Get("Location"))
			if rec.Code != http.StatusFound || loc.Query().Get("error") != "invalid_request" || loc.Query().Get("code") != "" {
				t.Fatalf("got %d %s, want a redirect with invalid_request and no code", rec.Code, loc)
			}
		})
	}
}

// TestAccessTokenPassesRagchatVerifier: the access token is what ragchat's
// verifier (internal/auth, with the issuer's JWKS, iss and aud) accepts as
// the fixed user of the demo tenant.
func TestAccessTokenPassesRagchatVerifier(t *testing.T) {
	before := runtime.NumGoroutine()
	srv := httptest.NewUnstartedServer(nil)
	i, err := NewIssuer(Settings{
		URL: "http://" + srv.Listener.Addr().String(), ClientID: testClient, Audience: "ragchat",
		User: User{Subject: "oidc-user", Tenant: "demo", Roles: []string{"member"}, Groups: []string{"eng"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = i
	srv.Start()
	code := authorizeCode(t, i, challengeOf(testVerifier))
	status, body := exchange(i, url.Values{
		"grant_type": {"authorization_code"}, "code": {code}, "client_id": {testClient},
		"redirect_uri": {testRedirect}, "code_verifier": {testVerifier},
	})
	if status != http.StatusOK {
		t.Fatalf("token: %d %v", status, body)
	}
	v, err := auth.NewVerifier(auth.Config{JWKSURL: srv.URL + "/jwks", Issuer: srv.URL, Audience: "ragchat"})
	if err != nil {
		t.Fatal(err)
	}
	who, err := v.Verify(context.Background(), body["access_token"].(string))
	if err != nil {
		t.Fatalf("ragchat refused the access token: %v", err)
	}
	if who.UserID != "oidc-user" || who.TenantID != "demo" || len(who.Groups) != 1 || who.Groups[0] != "eng" {
		t.Fatalf("viewer %+v", who)
	}
	if _, err := v.Verify(context.Background(), body["id_token"].(string)); err == nil {
		t.Fatal("the ID token (audience: the client) was accepted as an access token")
	}
	srv.Close()
	srv.Client().CloseIdleConnections()
	http.DefaultClient.CloseIdleConnections()
	deadline := time.Now().Add(10 * time.Second) // a hang guard, not a timing
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after the test, %d before", n, before)
	}
}
