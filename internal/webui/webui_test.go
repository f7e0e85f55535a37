package webui_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/webui"
)

// TestRoutes checks what the console serves: its pages (index.html, never
// cached, with a CSP), content-hashed assets (cached for good), the
// console's configuration, and 404 for anything else.
func TestRoutes(t *testing.T) {
	h := webui.New(webui.Options{})
	asset := firstAsset(t, h)
	cases := []struct {
		name, method, path string
		status             int
		contentType        string
		cache              string
	}{
		{"chat", "GET", "/", 200, "text/html", "no-cache"},
		{"conversation", "GET", "/c/0192f1a4-0000-7000-8000-000000000001", 200, "text/html", "no-cache"},
		{"admin", "GET", "/admin", 200, "text/html", "no-cache"},
		{"admin page", "GET", "/admin/feedback", 200, "text/html", "no-cache"},
		{"admin tenant settings", "GET", "/admin/settings", 200, "text/html", "no-cache"},
		{"admin audit events", "GET", "/admin/audit", 200, "text/html", "no-cache"},
		{"sign-in", "GET", "/signin", 200, "text/html", "no-cache"},
		{"share", "GET", "/s/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 200, "text/html", "no-cache"},
		{"nested share path", "GET", "/s/x/y", 404, "", ""},
		{"asset", "GET", asset, 200, "text/javascript", "immutable"},
		{"config", "GET", "/console-config.json", 200, "application/json", "no-cache"},
		{"unknown", "GET", "/nope", 404, "", ""},
		{"nested conversation path", "GET", "/c/x/y", 404, "", ""},
		{"missing asset", "GET", "/assets/missing.js", 404, "", ""},
		{"post to a page", "POST", "/", 405, "", ""},
		{"dev endpoints off", "GET", "/dev/users", 404, "", ""},
		{"GraphiQL off", "GET", "/graphiql", 404, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
			if rec.Code != c.status {
				t.Fatalf("%s %s: status %d, want %d", c.method, c.path, rec.Code, c.status)
			}
			if c.contentType != "" && !strings.HasPrefix(rec.Header().Get("Content-Type"), c.contentType) {
				t.Errorf("Content-Type %q, want %q", rec.Header().Get("Content-Type"), c.contentType)
			}
			if c.cache != "" && !strings.Contains(rec.Header().Get("Cache-Control"), c.cache) {
				t.Errorf("Cache-Control %q, want %q", rec.Header().Get("Cache-Control"), c.cache)
			}
			if c.contentType == "text/html" {
				csp := rec.Header().Get("Content-Security-Policy")
				if !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
					t.Errorf("page without a strict CSP: %q", csp)
				}
			}
		})
	}
}

// firstAsset finds a script the built index.html loads.
func firstAsset(t *testing.T, h http.Handler) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	body := rec.Body.String()
	i := strings.Index(body, `src="/assets/`)
	if i < 0 {
		t.Fatalf("index.html loads no asset (was the console built?):\n%s", body)
	}
	rest := body[i+len(`src="`):]
	return rest[:strings.IndexByte(rest, '"')]
}

// TestConfig checks the configuration the sign-in page reads: the
// development sign-in only when it is set, OIDC only with an issuer, whose
// origin the CSP then lets the page reach.
func TestConfig(t *testing.T) {
	cases := []struct {
		name      string
		opts      webui.Options
		want      string
		cspOrigin string
	}{
		{"production without OIDC", webui.Options{}, `{"devSignIn":false,"oidc":null}`, ""},
		{"development", webui.Options{DevSignIn: &webui.DevSignIn{}}, `{"devSignIn":true,"oidc":null}`, ""},
		{"OIDC", webui.Options{OIDC: webui.OIDC{Issuer: "https://login.example.com/realms/acme", ClientID: "ragchat", Scope: "openid"}},
			`{"devSignIn":false,"oidc":{"issuer":"https://login.example.com/realms/acme","clientId":"ragchat","scope":"openid"}}`, "https://login.example.com"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := webui.New(c.opts)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/console-config.json", nil))
			if got := strings.TrimSpace(rec.Body.String()); got != c.want {
				t.Errorf("config %s, want %s", got, c.want)
			}
			rec = httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
			if c.cspOrigin != "" && !strings.Contains(rec.Header().Get("Content-Security-Policy"), "connect-src 'self' "+c.cspOrigin+" ") {
				t.Errorf("CSP does not let the page reach the issuer: %s", rec.Header().Get("Content-Security-Policy"))
			}
		})
	}
}

// TestDevSignIn checks the development sign-in: it lists the demo users
// and mints a short-lived token with each one's roles and groups, only for
// a listed user and only for a JSON request.
func TestDevSignIn(t *testing.T) {
	type minted struct {
		user          string
		roles, groups []string
		ttl           time.Duration
	}
	var got []minted
	h := webui.New(webui.Options{DevSignIn: &webui.DevSignIn{Mint: func(user string, roles, groups []string, ttl time.Duration) (string, error) {
		got = append(got, minted{user, roles, groups, ttl})
		return "token-for-" + user, nil
	}}})
	srv := httptest.NewServer(h)
	defer srv.Close()

	res, err := http.Get(srv.URL + "/dev/users")
	if err != nil {
		t.Fatal(err)
	}
	var users []webui.DevUser
	if err := json.NewDecoder(res.Body).Decode(&users); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if len(users) != len(webui.DemoUsers) {
		t.Fatalf("users %v", users)
	}

	cases := []struct {
		name, contentType, body string
		status                  int
		token                   string
	}{
		{"admin", "application/json", `{"user":"demo-admin"}`, 200, "token-for-demo-admin"},
		{"member", "application/json", `{"user":"demo-user"}`, 200, "token-for-demo-user"},
		{"unknown user", "application/json", `{"user":"root"}`, 404, ""},
		{"form post", "application/x-www-form-urlencoded", `user=demo-admin`, 415, ""},
		{"bad JSON", "application/json", `{`, 400, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := http.Post(srv.URL+"/dev/token", c.contentType, strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			if res.StatusCode != c.status {
				t.Fatalf("status %d (%s), want %d", res.StatusCode, b, c.status)
			}
			if c.token != "" && !strings.Contains(string(b), `"token":"`+c.token+`"`) {
				t.Errorf("body %s", b)
			}
		})
	}
	if len(got) != 2 || got[0].user != "demo-admin" || got[0].roles[0] != "admin" || got[0].groups[0] != "ops" || got[0].ttl != webui.DevTokenTTL {
		t.Errorf("minted %+v", got)
	}
}

// TestGraphiQL checks that GraphiQL is served from the binary when enabled:
// its page loads only this origin's assets, never a CDN.
func TestGraphiQL(t *testing.T) {
	h := webui.New(webui.Options{GraphiQL: true})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/graphiql", nil))
	if rec.Code != 200 {
		t.Fatalf("status %d", rec.Code)
	}
	body := rec.Body.String()
	if !strings.Contains(body, `src="/assets/graphiql-`) {
		t.Fatalf("GraphiQL page without its bundled script:\n%s", body)
	}
	for _, remote := range []string{"http://", "https://", "//"} {
		if strings.Contains(body, `src="`+remote) || strings.Contains(body, `href="`+remote) {
			t.Errorf("GraphiQL page loads a remote asset:\n%s", body)
		}
	}
}

// TestSilentRenewPage checks the page of an OpenID Connect silent renew:
// /signin/silent is served like the other pages, but this origin (only)
// may frame it, since oidc-client-ts loads it in a hidden iframe; every
// other page refuses to be framed, and pages may frame the issuer.
func TestSilentRenewPage(t *testing.T) {
	h := webui.New(webui.Options{OIDC: webui.OIDC{Issuer: "https://login.example.com/realms/acme", ClientID: "ragchat", Scope: "openid"}})
	cases := []struct{ path, ancestors string }{
		{"/signin/silent", "frame-ancestors 'self';"},
		{"/signin", "frame-ancestors 'none';"},
		{"/", "frame-ancestors 'none';"},
	}
	for _, c := range cases {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", c.path, nil))
		if rec.Code != 200 {
			t.Fatalf("%s: status %d", c.path, rec.Code)
		}
		csp := rec.Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, c.ancestors) {
			t.Errorf("%s: CSP %q lacks %q", c.path, csp, c.ancestors)
		}
		if !strings.Contains(csp, "frame-src 'self' https://login.example.com;") {
			t.Errorf("%s: CSP %q does not let the silent renew frame the issuer", c.path, csp)
		}
	}
}
