package clientaddr_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/clientaddr"
)

// TestFromRequest: forwarding headers count only from a trusted proxy,
// and then the right-most address that is not a trusted proxy is the
// client's, so a client cannot choose its address by sending the headers
// itself.
func TestFromRequest(t *testing.T) {
	t.Parallel()
	proxies, err := clientaddr.ParseProxies([]string{"10.0.0.0/8", " ::1 ", "fd00::/8", ""})
	require.NoError(t, err)
	trusting := clientaddr.New(proxies)
	cases := []struct {
		name     string
		resolver *clientaddr.Resolver
		remote   string
		xff      []string
		realIP   string
		want     string
	}{
		{"no proxies: the peer", clientaddr.New(nil), "10.1.2.3:5000", []string{"203.0.113.9"}, "203.0.113.8", "10.1.2.3"},
		{"zero resolver: the peer", &clientaddr.Resolver{}, "10.1.2.3:5000", []string{"203.0.113.9"}, "", "10.1.2.3"},
		{"untrusted peer: headers ignored", trusting, "198.51.100.7:5000", []string{"203.0.113.9"}, "203.0.113.8", "198.51.100.7"},
		{"trusted peer without headers", trusting, "10.1.2.3:5000", nil, "", "10.1.2.3"},
		{"trusted peer, X-Real-IP", trusting, "10.1.2.3:5000", nil, "203.0.113.8", "203.0.113.8"},
		{"trusted peer, bad X-Real-IP", trusting, "10.1.2.3:5000", nil, "nonsense", "10.1.2.3"},
		{"X-Forwarded-For wins over X-Real-IP", trusting, "10.1.2.3:5000", []string{"203.0.113.9"}, "203.0.113.8", "203.0.113.9"},
		{"a spoofed left part is skipped", trusting, "10.1.2.3:5000", []string{"1.1.1.1, 203.0.113.9"}, "", "203.0.113.9"},
		{"trusted hops on the right are skipped", trusting, "10.1.2.3:5000", []string{"1.1.1.1, 203.0.113.9, 10.9.9.9"}, "", "203.0.113.9"},
		{"repeated headers read as one list", trusting, "10.1.2.3:5000", []string{"1.1.1.1", "203.0.113.9, 10.9.9.9"}, "", "203.0.113.9"},
		{"every hop trusted: the left-most", trusting, "10.1.2.3:5000", []string{"10.7.7.7, 10.9.9.9"}, "", "10.7.7.7"},
		{"garbage after a trusted hop: that hop", trusting, "10.1.2.3:5000", []string{"203.0.113.9, garbage, 10.9.9.9"}, "", "10.9.9.9"},
		{"garbage first: the peer", trusting, "10.1.2.3:5000", []string{"garbage"}, "", "10.1.2.3"},
		{"IPv6 peer trusted", trusting, "[::1]:5000", []string{"2001:db8::5"}, "", "2001:db8::5"},
		{"IPv4-mapped hop", trusting, "[::ffff:10.1.2.3]:5000", []string{"::ffff:203.0.113.9"}, "", "203.0.113.9"},
		{"a remote address without port", trusting, "198.51.100.7", nil, "", "198.51.100.7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/graphql", nil)
			r.RemoteAddr = c.remote
			for _, v := range c.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if c.realIP != "" {
				r.Header.Set("X-Real-IP", c.realIP)
			}
			require.Equal(t, c.want, c.resolver.FromRequest(r))
			var seen string
			c.resolver.Middleware(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				seen = clientaddr.FromContext(r.Context())
			})).ServeHTTP(httptest.NewRecorder(), r)
			require.Equal(t, c.want, seen, "the middleware")
		})
	}
}

// TestParseProxies: prefixes and single addresses; anything else is an
// error naming it.
func TestParseProxies(t *testing.T) {
	t.Parallel()
	got, err := clientaddr.ParseProxies([]string{"10.1.2.3/8", "192.168.1.1", "2001:db8::/32", "::ffff:172.16.0.1"})
	require.NoError(t, err)
	var s []string
	for _, p := range got {
		s = append(s, p.String())
	}
	require.Equal(t, []string{"10.0.0.0/8", "192.168.1.1/32", "2001:db8::/32", "172.16.0.1/32"}, s)
	_, err = clientaddr.ParseProxies([]string{"10.0.0.0/8", "proxy.local"})
	require.ErrorContains(t, err, "proxy.local")
}

// TestBucket: IPv4 addresses are their own buckets; IPv6 addresses share
// their /64.
func TestBucket(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"203.0.113.9":                 "203.0.113.9",
		"::ffff:203.0.113.9":          "203.0.113.9",
		"2001:db8:1:2::1":             "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff:ffff:ff:1": "2001:db8:1:2::/64",
		"2001:db8:1:3::1":             "2001:db8:1:3::/64",
		"fe80::1%eth0":                "fe80::/64",
		"not an address":              "not an address",
	} {
		require.Equal(t, want, clientaddr.Bucket(in), in)
	}
}
