// Package webui serves ragchat's reference web console (web/, built into
// dist and embedded in the binary): the chat at / and /c/<id>, the admin
// console at /admin, the sign-in page at /signin, GraphiQL at /graphiql
// (when enabled; no CDN), their assets under
// /assets/, the console's configuration at /console-config.json and, in
// development only, the demo users' sign-in endpoints under /dev/.
package webui

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http"
	"strings"
	"time"
)

// Options configure the console.
type Options struct {
	// DevSignIn, when set, serves the development sign-in: the demo
	// tenant's users (/dev/users) and a short-lived token for any of them
	// (/dev/token). Set it only when RAGCHAT_ENV=development.
	DevSignIn *DevSignIn
	// GraphiQL serves GraphiQL at /graphiql, from the binary like the
	// console (RAGCHAT_GRAPHIQL; off in production by default).
	GraphiQL bool
	// OIDC, when its Issuer is set, makes the sign-in page offer OpenID
	// Connect (authorization code with PKCE) against that issuer.
	OIDC OIDC
}

// OIDC is the public configuration of the OpenID Connect sign-in (no
// secrets: the console is a public client).
type OIDC struct {
	Issuer   string `json:"issuer"`
	ClientID string `json:"clientId"`
	Scope    string `json:"scope"`
}

// Handler serves the console. Build it with New.
type Handler struct {
	opts     Options
	assets   http.Handler
	index    []byte
	graphiql []byte
	config   []byte
}

// New builds the console's handler.
func New(o Options) *Handler {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // dist is embedded: it is always there
	}
	index, err := fs.ReadFile(sub, "index.html")
	if err != nil {
		index = []byte("<!doctype html><title>ragchat</title><p>The console was not built: run make web.</p>")
	}
	graphiql, _ := fs.ReadFile(sub, "graphiql.html")
	cfg := struct {
		DevSignIn bool  `json:"devSignIn"`
		OIDC      *OIDC `json:"oidc"`
	}{DevSignIn: o.DevSignIn != nil}
	if o.OIDC.Issuer != "" {
		cfg.OIDC = &o.OIDC
	}
	config, _ := json.Marshal(cfg)
	return &Handler{opts: o, assets: http.FileServerFS(sub), index: index, graphiql: graphiql, config: config}
}

// ServeHTTP routes a request to the console's pages, assets and endpoints;
// anything else is 404.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/dev/"):
		if h.opts.DevSignIn == nil {
			http.NotFound(w, r)
			return
		}
		h.opts.DevSignIn.ServeHTTP(w, r)
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	case strings.HasPrefix(p, "/assets/"):
		// Content-hashed names: cache them for good.
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.assets.ServeHTTP(w, r)
	case p == "/console-config.json":
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(h.config)
	case p == "/graphiql" && h.opts.GraphiQL && h.graphiql != nil:
		h.servePage(w, r, h.graphiql)
	case isPage(p):
		h.servePage(w, r, h.index)
	default:
		http.NotFound(w, r)
	}
}

// isPage reports whether p is one of the console's client-side routes.
func isPage(p string) bool {
	return p == "/" || p == "/signin" || p == "/signin/silent" || p == "/admin" || strings.HasPrefix(p, "/admin/") ||
		(strings.HasPrefix(p, "/c/") && len(p) > 3 && !strings.Contains(p[3:], "/")) ||
		(strings.HasPrefix(p, "/s/") && len(p) > 3 && !strings.Contains(p[3:], "/"))
}

// servePage serves a page (index.html or graphiql.html), never cached (it
// names the current assets),
// with a strict Content-Security-Policy: scripts and styles from this
// origin only, and network access to this origin (GraphQL over HTTP and
// WebSocket) and the OpenID Connect issuer. Pages may not be framed,
// except /signin/silent by this origin: the hidden iframe of an OIDC
// silent renew, which frames the issuer and then that page.
func (h *Handler) servePage(w http.ResponseWriter, r *http.Request, page []byte) {
	connect, frames := "'self'", "'self'"
	if h.opts.OIDC.Issuer != "" {
		connect += " " + originOf(h.opts.OIDC.Issuer)
		frames += " " + originOf(h.opts.OIDC.Issuer)
	}
	ancestors := "'none'"
	if r.URL.Path == "/signin/silent" {
		ancestors = "'self'"
	}
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src "+connect+" ws: wss:; frame-src "+frames+"; frame-ancestors "+ancestors+"; base-uri 'none'; form-action 'self'")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(page))
}

// originOf is the scheme://host of a URL, or "" when it has none.
func originOf(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
		return u[:i+3+j]
	}
	return u
}
