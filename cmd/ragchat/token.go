package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/ragchat/ragchat/internal/auth"
	"github.com/ragchat/ragchat/internal/config"
)

// listFlag is a repeatable flag that also splits comma-separated values.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			*l = append(*l, item)
		}
	}
	return nil
}

// runToken prints an HS256 token signed with the configured or development
// secret, for development and tests.
func runToken(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("token", stderr)
	tenant := fs.String("tenant", "", "tenant key (required), e.g. acme")
	user := fs.String("user", "", "user id, the token's subject (required), e.g. alice")
	ttl := fs.Duration("ttl", 0, "token lifetime (default RAGCHAT_DEV_TOKEN_TTL, 24h)")
	var roles, groups listFlag
	fs.Var(&roles, "role", "role: member, agent, admin or support (repeatable; default member)")
	fs.Var(&groups, "group", "ACL group (repeatable or comma-separated)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *tenant == "" || *user == "" {
		return usagef("--tenant and --user are required")
	}
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	if *ttl <= 0 {
		*ttl = cfg.Auth.DevTokenTTL
	}
	tok, err := mintToken(cfg, *tenant, *user, roles, groups, *ttl)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, tok)
	return nil
}

// mintToken signs a token with the HS256 secret the server verifies with.
func mintToken(cfg config.Config, tenant, user string, roles, groups []string, ttl time.Duration) (string, error) {
	secret, ok, err := hs256Secret(cfg, nil)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", errors.New("the server verifies tokens with a public key or JWKS; get tokens from your identity provider")
	}
	if len(roles) == 0 {
		roles = []string{"member"}
	}
	c := auth.Claims{Tenant: tenant, Roles: roles, Groups: groups,
		RegisteredClaims: jwt.RegisteredClaims{Subject: user}}
	if cfg.Auth.Audience != "" {
		c.Audience = jwt.ClaimStrings{cfg.Auth.Audience}
	}
	return auth.NewDevIssuer(secret, cfg.Auth.Issuer).Mint(c, ttl)
}
