package config

import (
	"net/netip"

	"github.com/ragchat/ragchat/internal/clientaddr"
)

// TrustedProxiesVar names the reverse proxies whose forwarding headers
// say who the client is (internal/clientaddr): comma-separated CIDR
// prefixes or addresses. Unset: none, and the client is the connection's
// peer.
const TrustedProxiesVar = "RAGCHAT_TRUSTED_PROXIES"

// loadTrustedProxies parses TrustedProxiesVar.
func loadTrustedProxies(e *env) []netip.Prefix {
	list := e.list(TrustedProxiesVar, nil)
	out, err := clientaddr.ParseProxies(list)
	if err != nil {
		e.fail(TrustedProxiesVar, e.str(TrustedProxiesVar, ""), "comma-separated CIDR prefixes or IP addresses, such as 10.0.0.0/8,::1")
		return nil
	}
	return out
}
