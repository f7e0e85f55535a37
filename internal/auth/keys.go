package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// minRSABits is the smallest RSA modulus accepted for RS256.
const minRSABits = 2048

// parsePublicKeyPEM parses the first PEM block of data: a PKIX "PUBLIC KEY",
// a PKCS#1 "RSA PUBLIC KEY" or a "CERTIFICATE" whose key is used (its
// validity period is not checked: the certificate only carries the key). It
// returns the key and the one algorithm it may verify.
func parsePublicKeyPEM(data []byte) (any, string, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, "", errors.New("auth: PublicKeyPEM holds no PEM block")
	}
	var (
		key any
		err error
	)
	switch {
	case block.Type == "PUBLIC KEY":
		key, err = x509.ParsePKIXPublicKey(block.Bytes)
	case block.Type == "RSA PUBLIC KEY":
		key, err = x509.ParsePKCS1PublicKey(block.Bytes)
	case block.Type == "CERTIFICATE":
		var cert *x509.Certificate
		if cert, err = x509.ParseCertificate(block.Bytes); err == nil {
			key = cert.PublicKey
		}
	case strings.Contains(block.Type, "PRIVATE KEY"):
		return nil, "", errors.New("auth: PublicKeyPEM holds a private key; give the public key")
	default:
		return nil, "", fmt.Errorf("auth: unsupported PEM block type %q", block.Type)
	}
	if err != nil {
		return nil, "", fmt.Errorf("auth: parse public key: %w", err)
	}
	alg, err := algorithmFor(key)
	if err != nil {
		return nil, "", err
	}
	return key, alg, nil
}

// algorithmFor returns the one signing algorithm key may verify: RS256 for
// an RSA key of at least 2048 bits, ES256 for a P-256 key.
func algorithmFor(key any) (string, error) {
	switch k := key.(type) {
	case *rsa.PublicKey:
		if k.N == nil || k.N.BitLen() < minRSABits {
			return "", fmt.Errorf("auth: RSA key shorter than %d bits", minRSABits)
		}
		return jwt.SigningMethodRS256.Alg(), nil
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return "", errors.New("auth: EC key is not on curve P-256")
		}
		return jwt.SigningMethodES256.Alg(), nil
	default:
		return "", fmt.Errorf("auth: unsupported public key type %T", key)
	}
}
