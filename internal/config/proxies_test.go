package config_test

import (
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/config"
)

// TestTrustedProxies: RAGCHAT_TRUSTED_PROXIES takes CIDR prefixes and
// addresses; unset trusts none; anything else refuses the start, naming
// the variable.
func TestTrustedProxies(t *testing.T) {
	c, err := load(map[string]string{config.TrustedProxiesVar: "10.0.0.0/8, ::1,172.18.0.0/16"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range c.HTTP.TrustedProxies {
		got = append(got, p.String())
	}
	if strings.Join(got, ",") != "10.0.0.0/8,::1/128,172.18.0.0/16" {
		t.Fatalf("trusted proxies %v", got)
	}
	if c, err := load(nil); err != nil || len(c.HTTP.TrustedProxies) != 0 {
		t.Fatalf("unset: %v %v", c.HTTP.TrustedProxies, err)
	}
	_, err = load(map[string]string{config.TrustedProxiesVar: "10.0.0.0/8,nginx"})
	if err == nil || !strings.Contains(err.Error(), config.TrustedProxiesVar) {
		t.Fatalf("a host name: %v", err)
	}
}
