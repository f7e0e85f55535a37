// Package gqlid maps GraphQL ID and UUID scalars to uuid.UUID for gqlgen.
package gqlid

import (
	"encoding/hex"
	"io"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/domain"
)

// MarshalUUID writes u as a quoted GraphQL string. A page of results
// writes one per node, so it renders the 38 bytes in place instead of
// building and quoting an intermediate string.
func MarshalUUID(u uuid.UUID) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		var b [38]byte
		b[0], b[37] = '"', '"'
		encodeHex(b[1:37], u)
		_, _ = w.Write(b[:])
	})
}

// encodeHex writes u in its canonical 36-byte form (8-4-4-4-12 lower-case
// hex digits), as uuid.UUID.String does.
func encodeHex(dst []byte, u uuid.UUID) {
	hex.Encode(dst, u[:4])
	dst[8] = '-'
	hex.Encode(dst[9:13], u[4:6])
	dst[13] = '-'
	hex.Encode(dst[14:18], u[6:8])
	dst[18] = '-'
	hex.Encode(dst[19:23], u[8:10])
	dst[23] = '-'
	hex.Encode(dst[24:], u[10:])
}

// UnmarshalUUID parses a GraphQL ID or UUID input. A malformed id is a
// client error (BAD_USER_INPUT at the API edge).
func UnmarshalUUID(v any) (uuid.UUID, error) {
	s, ok := v.(string)
	if !ok {
		return uuid.Nil, domain.Errorf(domain.CodeBadUserInput, "an id must be a string, got %T", v)
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, domain.Errorf(domain.CodeBadUserInput, "invalid id %q", s)
	}
	return u, nil
}
