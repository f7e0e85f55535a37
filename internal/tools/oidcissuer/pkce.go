package main

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
)

// errPKCE is the token endpoint's answer to a code_verifier that does not
// match the code's challenge.
var errPKCE = errors.New("code_verifier does not match the code_challenge")

// checkVerifier reports whether verifier proves possession of the S256
// challenge (RFC 7636, section 4.6): BASE64URL(SHA256(verifier)) == challenge. The
// verifier must be 43 to 128 characters of [A-Za-z0-9-._~] (section 4.1).
func checkVerifier(challenge, verifier string) error {
	if len(verifier) < 43 || len(verifier) > 128 {
		return errors.New("code_verifier must be 43 to 128 characters")
	}
	for _, r := range verifier {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_' || r == '~') {
			return errors.New("code_verifier has characters outside [A-Za-z0-9-._~]")
		}
	}
	sum := sha256.Sum256([]byte(verifier))
	want := base64.RawURLEncoding.EncodeToString(sum[:])
	if subtle.ConstantTimeCompare([]byte(want), []byte(challenge)) != 1 {
		return errPKCE
	}
	return nil
}
