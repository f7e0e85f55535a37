// Package persisted serves persisted GraphQL operations: Apollo's
// automatic persisted queries (APQ), kept in a bounded table every
// instance shares (Store), and trusted documents loaded from a manifest in
// Apollo's or Relay's format (Manifest), which RAGCHAT_PERSISTED_ONLY makes
// the only documents the server runs. Extension is the gqlgen extension
// that applies both to every operation before gqlgen parses it
// (docs/API.md, "Persisted operations", and
// internal/persisted/README.md).
package persisted
