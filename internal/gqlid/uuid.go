// Package gqlid maps GraphQL ID and UUID scalars to uuid.UUID for gqlgen.
package gqlid

import (
	"io"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/domain"
)

// MarshalUUID writes u as a quoted GraphQL string.
func MarshalUUID(u uuid.UUID) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		_, _ = io.WriteString(w, strconv.Quote(u.String()))
	})
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
