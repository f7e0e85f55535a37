package auth

import (
	"errors"

	"github.com/golang-jwt/jwt/v5"

	"github.com/ragchat/ragchat/internal/domain"
)

// The client-safe messages Verify returns. They never contain token data.
const (
	msgMissingToken   = "missing token"
	msgMalformedToken = "malformed token"
	msgExpired        = "token expired"
	msgNotYetValid    = "token not yet valid"
	msgBadIssuer      = "invalid token issuer"
	msgBadAudience    = "invalid token audience"
	msgBadClaims      = "invalid token claims"
	msgUnknownKey     = "unknown signing key"
	msgInvalid        = "invalid token"
)

// errUnknownKey marks a token whose signing key cannot be found, even after
// a permitted JWKS refresh.
var errUnknownKey = errors.New("signing key not found")

// unauthenticated wraps cause in the UNAUTHENTICATED domain error with the
// client-safe message msg.
func unauthenticated(cause error, msg string) *domain.Error {
	if cause == nil {
		cause = errors.New(msg)
	}
	return domain.Wrap(cause, domain.CodeUnauthenticated, msg)
}

// errorMessages are the safe messages of the errors of jwt parsing and key
// lookup, most specific first.
var errorMessages = []struct {
	err error
	msg string
}{
	{errUnknownKey, msgUnknownKey},
	{jwt.ErrTokenMalformed, msgMalformedToken},
	{jwt.ErrTokenExpired, msgExpired},
	{jwt.ErrTokenNotValidYet, msgNotYetValid},
	{jwt.ErrTokenUsedBeforeIssued, msgNotYetValid},
	{jwt.ErrTokenInvalidIssuer, msgBadIssuer},
	{jwt.ErrTokenInvalidAudience, msgBadAudience},
	{jwt.ErrTokenRequiredClaimMissing, msgBadClaims},
	{jwt.ErrInvalidType, msgBadClaims},
}

// classify maps an error from jwt parsing or claims mapping to the
// UNAUTHENTICATED domain error with the most specific safe message: the
// first of errorMessages that err is, else msgInvalid.
func classify(err error) *domain.Error {
	var de *domain.Error
	if errors.As(err, &de) {
		return de
	}
	msg := msgInvalid
	for _, m := range errorMessages {
		if errors.Is(err, m.err) {
			msg = m.msg
			break
		}
	}
	return unauthenticated(err, msg)
}
