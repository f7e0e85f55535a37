// Package clientaddr carries the network address of the client that made
// a request, through a context.Context, from the HTTP server to the
// engine code that meters per client (internal/sharing).
//
// The address is the connection's remote address, unless that is a
// trusted proxy (RAGCHAT_TRUSTED_PROXIES): then it is the right-most
// address of X-Forwarded-For that is not a trusted proxy itself (or
// X-Real-IP when there is no X-Forwarded-For). Forwarding headers from
// any other peer are ignored, so a client cannot choose its address.
// Bucket maps an address to its rate bucket: IPv6 clients are metered by
// their /64, the block one subscriber usually holds.
package clientaddr

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

type key struct{}

// NewContext returns a copy of parent carrying addr.
func NewContext(parent context.Context, addr string) context.Context {
	return context.WithValue(parent, key{}, addr)
}

// FromContext returns the client address in ctx, or "" when there is none.
func FromContext(ctx context.Context) string {
	a, _ := ctx.Value(key{}).(string)
	return a
}

// ParseProxies parses trusted proxies: CIDR prefixes ("10.0.0.0/8",
// "fd00::/8") or single addresses ("127.0.0.1", "::1").
func ParseProxies(list []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(list))
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("%q is neither a CIDR prefix nor an IP address", s)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// Resolver finds requests' client addresses behind the trusted proxies.
// The zero value (and New(nil)) trusts none: the address is always the
// connection's.
type Resolver struct {
	trusted []netip.Prefix
}

// New returns the resolver that trusts the proxies in trusted.
func New(trusted []netip.Prefix) *Resolver {
	return &Resolver{trusted: trusted}
}

// trusts reports whether a is a trusted proxy.
func (r *Resolver) trusts(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range r.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// FromRequest returns the client address of req: the host part of its
// remote address (the whole remote address when it has no port), unless
// that is a trusted proxy. Then X-Forwarded-For is read from the right:
// the first address that is not a trusted proxy is the client's; when
// every one is trusted, the left-most; when one cannot be parsed, the
// trusted hop to its right (a proxy we trust wrote what follows it, but
// not that). Without X-Forwarded-For, X-Real-IP (when it parses) is the
// client's.
func (r *Resolver) FromRequest(req *http.Request) string {
	host, _, err := net.SplitHostPort(req.RemoteAddr)
	if err != nil {
		host = req.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || len(r.trusted) == 0 || !r.trusts(peer) {
		return host
	}
	hops := forwarded(req.Header.Values("X-Forwarded-For"))
	if len(hops) == 0 {
		if a, err := netip.ParseAddr(strings.TrimSpace(req.Header.Get("X-Real-IP"))); err == nil {
			return a.Unmap().String()
		}
		return peer.Unmap().String()
	}
	client := peer.Unmap()
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(hops[i])
		if err != nil {
			break
		}
		client = a.Unmap()
		if !r.trusts(client) {
			break
		}
	}
	return client.String()
}

// forwarded splits X-Forwarded-For header values into their addresses,
// left to right, across repeated headers.
func forwarded(values []string) []string {
	var out []string
	for _, v := range values {
		for _, h := range strings.Split(v, ",") {
			if h = strings.TrimSpace(h); h != "" {
				out = append(out, h)
			}
		}
	}
	return out
}

// Middleware puts each request's client address (FromRequest) into its
// context.
func (r *Resolver) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		next.ServeHTTP(w, req.WithContext(NewContext(req.Context(), r.FromRequest(req))))
	})
}

// Bucket is the rate bucket of client address addr: an IPv4 address (an
// IPv4-mapped IPv6 one included) is its own bucket, an IPv6 address
// shares its /64 with its neighbours ("2001:db8:1:2::/64"), since one
// subscriber commonly holds a whole /64 and could otherwise meter each of
// its 2^64 addresses apart. Anything else is returned as it is.
func Bucket(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, _ := a.WithZone("").Prefix(64)
	return p.String()
}
