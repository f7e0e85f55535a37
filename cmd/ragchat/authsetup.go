package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/ragchat/ragchat/internal/auth"
	"github.com/ragchat/ragchat/internal/config"
)

// devSecretBytes is the size of a generated development secret.
const devSecretBytes = 32

// loadOrCreateDevSecret returns the development secret kept in path (the
// HS256 secret), generating one (64 hex characters, mode 0600) on first
// use, so that tokens from `ragchat token` keep working across restarts.
func loadOrCreateDevSecret(path string) ([]byte, bool, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		s := strings.TrimSpace(string(b))
		if len(s) < auth.MinHS256SecretLen {
			return nil, false, fmt.Errorf("development secret in %s is shorter than %d bytes; delete it to regenerate", path, auth.MinHS256SecretLen)
		}
		return []byte(s), false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("read development secret: %w", err)
	}
	raw := make([]byte, devSecretBytes)
	if _, err := rand.Read(raw); err != nil {
		return nil, false, err
	}
	secret := hex.EncodeToString(raw)
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, false, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return loadOrCreateDevSecret(path) // another process created it first
	}
	if err != nil {
		return nil, false, fmt.Errorf("write development secret: %w", err)
	}
	if _, err := f.WriteString(secret + "\n"); err != nil {
		f.Close()
		return nil, false, fmt.Errorf("write development secret: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, false, err
	}
	return []byte(secret), true, nil
}

// hs256Secret returns the HS256 secret tokens are signed with: the
// configured one, or in development the generated one. ok is false when the
// server verifies with a public key or a JWKS (it cannot mint tokens).
func hs256Secret(cfg config.Config, log *slog.Logger) (secret []byte, ok bool, err error) {
	switch {
	case cfg.Auth.HS256Secret != "":
		return []byte(cfg.Auth.HS256Secret), true, nil
	case cfg.Auth.PublicKeyPEM != "" || cfg.Auth.JWKSURL != "":
		return nil, false, nil
	case !cfg.IsDevelopment():
		return nil, false, errors.New("no JWT key configured")
	}
	secret, created, err := loadOrCreateDevSecret(cfg.Auth.DevSecretFile)
	if err != nil {
		return nil, false, err
	}
	if created && log != nil {
		log.Info("generated a development JWT secret", slog.String("file", cfg.Auth.DevSecretFile))
	}
	return secret, true, nil
}

// newVerifier builds the token verifier the configuration names.
func newVerifier(cfg config.Config, log *slog.Logger) (*auth.Verifier, error) {
	ac := auth.Config{
		PublicKeyPEM: []byte(cfg.Auth.PublicKeyPEM),
		JWKSURL:      cfg.Auth.JWKSURL,
		Issuer:       cfg.Auth.Issuer,
		Audience:     cfg.Auth.Audience,
		Logger:       log,
	}
	if cfg.Auth.PublicKeyPEM == "" && cfg.Auth.JWKSURL == "" {
		secret, _, err := hs256Secret(cfg, log)
		if err != nil {
			return nil, err
		}
		ac.HS256Secret = secret
	}
	return auth.NewVerifier(ac)
}
