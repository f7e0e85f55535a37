// Command oidcissuer runs a minimal, real OpenID Connect issuer for the web
// console's production sign-in test (web/e2e/oidc.test.js) and for trying
// RAGCHAT_OIDC_* locally. It is a test tool, never a production identity
// provider: its authorize endpoint approves one fixed user without asking.
//
// It serves the discovery document, a JWKS with one RSA key generated at
// start, an authorize endpoint that redirects back with a code (PKCE S256
// required), and a token endpoint that checks the code_verifier and returns
// RS256 access and ID tokens. The access token carries the claims ragchat's
// verifier reads (internal/auth: iss, aud, sub, tenant, roles, groups).
//
// It prints its issuer URL on stdout, then serves until interrupted:
//
//	go run ./internal/tools/oidcissuer -client-id ragchat-console -audience ragchat
//	RAGCHAT_ENV=production RAGCHAT_OIDC_ISSUER=<url> RAGCHAT_OIDC_CLIENT_ID=ragchat-console \
//	  RAGCHAT_JWT_JWKS_URL=<url>/jwks RAGCHAT_JWT_ISSUER=<url> RAGCHAT_JWT_AUDIENCE=ragchat ragchat serve
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "host:port to listen on (port 0: any free port)")
	clientID := flag.String("client-id", "ragchat-console", "the one public client allowed to sign in")
	audience := flag.String("audience", "ragchat", "the access token's aud (RAGCHAT_JWT_AUDIENCE)")
	tenant := flag.String("tenant", "demo", "the user's tenant claim")
	subject := flag.String("subject", "oidc-user", "the user every sign-in approves (sub)")
	roles := flag.String("roles", "member", "the user's roles, comma-separated")
	groups := flag.String("groups", "", "the user's ACL groups, comma-separated")
	ttl := flag.Duration("ttl", time.Hour, "the tokens' lifetime")
	flag.Parse()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "oidcissuer:", err)
		os.Exit(1)
	}
	url := "http://" + ln.Addr().String()
	iss, err := NewIssuer(Settings{
		URL:      url,
		ClientID: *clientID,
		Audience: *audience,
		User:     User{Subject: *subject, Tenant: *tenant, Roles: split(*roles), Groups: split(*groups)},
		TTL:      *ttl,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "oidcissuer:", err)
		os.Exit(1)
	}
	srv := &http.Server{Handler: iss, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	fmt.Println(url)
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "oidcissuer:", err)
		os.Exit(1)
	}
}

// split parses a comma-separated list, dropping empty items.
func split(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
