package config

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// DevAllowRemoteVar is the variable that lets development mode listen on
// an address other machines can reach (Config.DevAllowRemote).
const DevAllowRemoteVar = "RAGCHAT_DEV_ALLOW_REMOTE"

// checkDevAddr refuses development mode on an address other machines can
// reach, unless DevAllowRemote forces it: development signs in anyone who
// asks (POST /dev/token mints an admin's token for the demo tenant) and
// verifies tokens with a generated secret, so it listens on loopback only.
func (c Config) checkDevAddr() error {
	if !c.IsDevelopment() || c.DevAllowRemote || IsLoopbackAddr(c.Addr) {
		return nil
	}
	return fmt.Errorf("RAGCHAT_ADDR=%q: development mode gives a sign-in token to anyone who can connect, so it listens only on "+
		"a loopback address (127.0.0.1, [::1] or localhost); set RAGCHAT_ENV=production with a RAGCHAT_JWT_* key, "+
		"or %s=true to expose development sign-in anyway", c.Addr, DevAllowRemoteVar)
}

// IsLoopbackAddr reports whether the listen address addr (host:port)
// accepts connections from this machine only: a loopback IP or
// "localhost". An empty host (":8080") listens on every interface, and any
// other name may resolve to one, so neither is loopback.
func IsLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
