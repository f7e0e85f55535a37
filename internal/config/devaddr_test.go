package config_test

import (
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/config"
)

// TestDevelopmentListensOnLoopbackOnly: development mode (which signs in
// anyone who asks) is refused on an address other machines can reach
// unless RAGCHAT_DEV_ALLOW_REMOTE=true forces it; loopback addresses, the
// default of `make run` and production anywhere are accepted.
func TestDevelopmentListensOnLoopbackOnly(t *testing.T) {
	t.Parallel()
	const key = "0123456789abcdef0123456789abcdef"
	cases := []struct {
		name string
		env  map[string]string
		ok   bool
	}{
		{"make run: no variables", nil, true},
		{"127.0.0.1", map[string]string{"RAGCHAT_ADDR": "127.0.0.1:8080"}, true},
		{"127.0.0.1, port 0", map[string]string{"RAGCHAT_ADDR": "127.0.0.1:0"}, true},
		{"another loopback IP", map[string]string{"RAGCHAT_ADDR": "127.8.9.10:8080"}, true},
		{"::1", map[string]string{"RAGCHAT_ADDR": "[::1]:8080"}, true},
		{"localhost", map[string]string{"RAGCHAT_ADDR": "localhost:8080"}, true},
		{"LocalHost", map[string]string{"RAGCHAT_ADDR": "LocalHost:8080"}, true},
		{"0.0.0.0", map[string]string{"RAGCHAT_ADDR": "0.0.0.0:8080"}, false},
		{"every interface", map[string]string{"RAGCHAT_ADDR": ":8080"}, false},
		{"::", map[string]string{"RAGCHAT_ADDR": "[::]:8080"}, false},
		{"a LAN address", map[string]string{"RAGCHAT_ADDR": "192.168.1.5:8080"}, false},
		{"a host name", map[string]string{"RAGCHAT_ADDR": "ragchat.example:8080"}, false},
		{"no port", map[string]string{"RAGCHAT_ADDR": "127.0.0.1"}, false},
		{"explicit development on 0.0.0.0", map[string]string{"RAGCHAT_ENV": "development", "RAGCHAT_ADDR": "0.0.0.0:8080"}, false},
		{"forced", map[string]string{"RAGCHAT_ADDR": "0.0.0.0:8080", "RAGCHAT_DEV_ALLOW_REMOTE": "true"}, true},
		{"forced off", map[string]string{"RAGCHAT_ADDR": "0.0.0.0:8080", "RAGCHAT_DEV_ALLOW_REMOTE": "false"}, false},
		{"production on 0.0.0.0", map[string]string{"RAGCHAT_ENV": "production", "RAGCHAT_ADDR": "0.0.0.0:8080", "RAGCHAT_JWT_HS256_SECRET": key}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := load(tc.env)
			if tc.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("development on %q was accepted", c.Addr)
			}
			for _, want := range []string{"RAGCHAT_ADDR=", "loopback", "RAGCHAT_ENV=production", "RAGCHAT_DEV_ALLOW_REMOTE=true"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error %q does not say %q", err, want)
				}
			}
		})
	}

	t.Run("a bad RAGCHAT_DEV_ALLOW_REMOTE", func(t *testing.T) {
		t.Parallel()
		_, err := load(map[string]string{"RAGCHAT_DEV_ALLOW_REMOTE": "maybe"})
		if err == nil || !strings.Contains(err.Error(), "RAGCHAT_DEV_ALLOW_REMOTE") {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestTheImageEnvironmentNeedsAKey: the container image's own environment
// (scripts/image.sh: production on 0.0.0.0:8080) without anything else is
// refused with one line naming the JWT variables to set.
func TestTheImageEnvironmentNeedsAKey(t *testing.T) {
	t.Parallel()
	_, err := load(map[string]string{"RAGCHAT_ENV": "production", "RAGCHAT_ADDR": "0.0.0.0:8080", "RAGCHAT_DATA_DIR": "/data"})
	if err == nil {
		t.Fatal("the image's environment was accepted without a JWT key")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("the error is more than one line:\n%s", msg)
	}
	for _, want := range []string{"RAGCHAT_ENV=production", "RAGCHAT_JWT_PUBLIC_KEY", "RAGCHAT_JWT_JWKS_URL", "RAGCHAT_JWT_HS256_SECRET"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error %q does not name %s", msg, want)
		}
	}
}

func TestIsLoopbackAddr(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"127.0.0.1:1": true, "[::1]:1": true, "localhost:1": true, "[::ffff:127.0.0.1]:1": true,
		"0.0.0.0:1": false, ":1": false, "[::]:1": false, "10.0.0.1:1": false, "example.com:1": false, "": false,
	} {
		if got := config.IsLoopbackAddr(addr); got != want {
			t.Errorf("IsLoopbackAddr(%q) = %v, want %v", addr, got, want)
		}
	}
}
