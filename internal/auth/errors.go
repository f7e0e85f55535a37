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

// classify maps an error from jwt parsing or claims mapping to the
// UNAUTHENTICATED domain error with the most specific safe message.
func classify(err error) *domain.Error {
	var de *domain.Error
	if errors.As(err, &de) {
		return de
	}
	msg := msgInvalid
	switch {
	case errors.Is(err, errUnknownKey):
		msg = msgUnknownKey
	case errors.Is(err, jwt.ErrTokenMalformed):
		msg = msgMalformedToken
	case errors.Is(err, jwt.ErrTokenExpired):
		msg = msgExpired
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		msg = msgNotYetValid
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		msg = msgBadIssuer
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		msg = msgBadAudience
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing), errors.Is(err, jwt.ErrInvalidType):
		msg = msgBadClaims
	}
	return unauthenticated(err, msg)
}
