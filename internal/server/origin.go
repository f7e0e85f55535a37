package server

import (
	"net/http"
	"net/url"
	"strings"
)

// originPolicy decides which browser origins may call the API: the
// configured allow-list (each pattern may hold one "*", as in
// "http://localhost:*"), plus the server's own origin. It backs both CORS
// and the WebSocket upgrade check, which never accepts every origin.
type originPolicy struct {
	exact    map[string]bool
	patterns [][2]string // prefix, suffix around the "*"
}

func newOriginPolicy(allowed []string) *originPolicy {
	p := &originPolicy{exact: make(map[string]bool)}
	for _, a := range allowed {
		a = strings.ToLower(strings.TrimRight(strings.TrimSpace(a), "/"))
		if a == "" {
			continue
		}
		if before, after, ok := strings.Cut(a, "*"); ok {
			p.patterns = append(p.patterns, [2]string{before, after})
			continue
		}
		p.exact[a] = true
	}
	return p
}

// allowed reports whether origin matches the allow-list.
func (p *originPolicy) allowed(origin string) bool {
	origin = strings.ToLower(origin)
	if p.exact[origin] {
		return true
	}
	for _, pat := range p.patterns {
		if len(origin) >= len(pat[0])+len(pat[1]) && strings.HasPrefix(origin, pat[0]) && strings.HasSuffix(origin, pat[1]) {
			// The wildcard must not span a path or another authority.
			mid := origin[len(pat[0]) : len(origin)-len(pat[1])]
			if !strings.ContainsAny(mid, "/@") {
				return true
			}
		}
	}
	return false
}

// checkWebSocket is the WebSocket upgrade's Origin check. A request without
// an Origin header comes from a non-browser client (it cannot be a
// cross-site browser request) and is allowed; a browser origin must be the
// server's own or on the allow-list.
func (p *originPolicy) checkWebSocket(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	return p.allowed(origin)
}
