package server_test

import (
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/ragchat/ragchat/internal/auth"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestWebSocketEndsWithItsToken: a WebSocket authenticated with a token
// ends when the token expires (reconnecting with an expired token is
// refused with 4403, see the transport tests).
func TestWebSocketEndsWithItsToken(t *testing.T) {
	h := start(t, servertest.Options{})
	tok, err := h.Issuer.Mint(auth.Claims{Tenant: "demo", Roles: []string{"member"},
		RegisteredClaims: jwt.RegisteredClaims{Subject: "alice"}}, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c := gqlclient.New(h.URL, tok)
	ws, err := c.DialWS(ctxT(t), gqlclient.WSOptions{})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer ws.Close()
	select {
	case <-ws.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the connection outlived its token")
	}
}
