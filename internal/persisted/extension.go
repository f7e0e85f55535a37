package persisted

import (
	"context"
	"fmt"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/ragchat/ragchat/internal/viewer"
)

// Error codes of persisted operations (extensions.code). The first is
// Apollo's own, which its clients react to by sending the query again.
const (
	CodeNotFound     = "PERSISTED_QUERY_NOT_FOUND"
	CodeNotSupported = "PERSISTED_QUERY_NOT_SUPPORTED"
	CodeNotAllowed   = "PERSISTED_QUERY_NOT_ALLOWED"
	CodeInvalid      = "PERSISTED_QUERY_INVALID"
)

// The messages Apollo's link also recognises: after NotFound it sends the
// query with its hash; after NotSupported it sends the query without one,
// and stops sending hashes.
const (
	notFoundMessage     = "PersistedQueryNotFound"
	notSupportedMessage = "PersistedQueryNotSupported"
)

// MaxQueryBytes bounds a query the APQ store keeps: a longer one is
// refused (PERSISTED_QUERY_INVALID), so that the shared table stays small.
const MaxQueryBytes = 64 << 10

// Cache is where APQ queries are kept: Store, or any graphql.Cache.
type Cache = graphql.Cache[string]

// Extension is the gqlgen extension for persisted operations. It runs
// before any other operation-parameter mutator (and so before anything
// parses the document) and, for each operation:
//
//   - finds the document id: extensions.persistedQuery.sha256Hash (Apollo,
//     version 1) or the request's documentId, doc_id or id (Relay and the
//     GraphQL-over-HTTP persisted documents draft; the transports pass it
//     with WithDocumentID);
//   - runs the manifest's document when the id is in it;
//   - otherwise, when Only is set, refuses the operation with
//     PERSISTED_QUERY_NOT_ALLOWED, whatever it sent;
//   - otherwise answers an unknown documentId with PERSISTED_QUERY_NOT_FOUND
//     and follows the APQ protocol with Cache: a hash alone runs the
//     cached query or answers PERSISTED_QUERY_NOT_FOUND; a hash with its
//     query is verified (SHA-256, at most MaxQueryBytes) and runs, and is
//     cached once its document has parsed and validated (the operation
//     context mutator, which gqlgen calls only then).
//
// Only a viewer registers: a request without one (a share link's reader)
// runs the queries already cached, and answers a hash it does not know,
// or a hash sent with its query, with PERSISTED_QUERY_NOT_SUPPORTED, so
// that Apollo's link sends it the plain query from then on; it never
// writes the shared table.
type Extension struct {
	Cache    Cache
	Manifest *Manifest
	Only     bool
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
	graphql.OperationContextMutator
} = Extension{}

// ExtensionName implements graphql.HandlerExtension.
func (Extension) ExtensionName() string { return "PersistedOperations" }

// Validate implements graphql.HandlerExtension.
func (e Extension) Validate(graphql.ExecutableSchema) error {
	if e.Cache == nil {
		return fmt.Errorf("persisted.Extension needs a Cache")
	}
	return nil
}

type documentIDKey struct{}

// WithDocumentID returns ctx carrying the request's persisted document id
// (documentId, doc_id or id), which the transports read from the request.
func WithDocumentID(ctx context.Context, id string) context.Context {
	if id == "" {
		return ctx
	}
	return context.WithValue(ctx, documentIDKey{}, id)
}

// DocumentID returns the id WithDocumentID stored.
func DocumentID(ctx context.Context) string {
	id, _ := ctx.Value(documentIDKey{}).(string)
	return id
}

// coded returns a protocol error with extensions.code.
func coded(code, format string, args ...any) *gqlerror.Error {
	return &gqlerror.Error{Message: fmt.Sprintf(format, args...), Extensions: map[string]any{"code": code}}
}

// MutateOperationParameters implements graphql.OperationParameterMutator.
func (e Extension) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	hash, isAPQ, err := apqHash(p.Extensions)
	if err != nil {
		return err
	}
	docID := DocumentID(ctx)
	id := hash
	if id == "" {
		id = docID
	}
	if id != "" {
		if body, ok := e.Manifest.Lookup(id); ok {
			if p.Query != "" && p.Query != body {
				return coded(CodeInvalid, "the query is not the persisted document %s", id)
			}
			p.Query = body
			return nil
		}
	}
	if e.Only {
		return coded(CodeNotAllowed, "this server runs only the persisted operations of its manifest; send a known document id")
	}
	if !isAPQ {
		if docID != "" && p.Query == "" {
			return coded(CodeNotFound, notFoundMessage)
		}
		return nil
	}
	anonymous := viewer.FromContext(ctx) == nil
	if p.Query == "" {
		q, ok := e.Cache.Get(ctx, hash)
		switch {
		case ok:
			p.Query = q
			return nil
		case anonymous:
			return notSupported()
		default:
			return coded(CodeNotFound, notFoundMessage)
		}
	}
	if anonymous {
		return notSupported()
	}
	if len(p.Query) > MaxQueryBytes {
		return coded(CodeInvalid, "a persisted query is at most %d bytes", MaxQueryBytes)
	}
	if Hash(p.Query) != hash {
		return coded(CodeInvalid, "provided APQ hash does not match query")
	}
	if oc := graphql.GetOperationContext(ctx); oc != nil {
		oc.Stats.SetExtension(registrationKey, registration{hash: hash, query: p.Query})
	}
	return nil
}

// registrationKey names the verified registration of an operation among
// its operation context's extension stats.
const registrationKey = "PersistedOperations.registration"

// registration is a verified hash and its query, waiting for the document
// to parse and validate.
type registration struct{ hash, query string }

// MutateOperationContext implements graphql.OperationContextMutator: gqlgen
// calls it once the operation's document has parsed and validated, and
// only then is a registration cached.
func (e Extension) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if r, ok := oc.Stats.GetExtension(registrationKey).(registration); ok {
		e.Cache.Add(ctx, r.hash, r.query)
	}
	return nil
}

// notSupported answers a request without a viewer that would register a
// query: Apollo's link then sends the plain query.
func notSupported() *gqlerror.Error {
	return coded(CodeNotSupported, notSupportedMessage)
}

// apqHash returns extensions.persistedQuery.sha256Hash, and whether the
// request used APQ at all.
func apqHash(ext map[string]any) (string, bool, *gqlerror.Error) {
	raw, ok := ext["persistedQuery"]
	if !ok || raw == nil {
		return "", false, nil
	}
	pq, ok := raw.(map[string]any)
	if !ok {
		return "", false, coded(CodeInvalid, "invalid APQ extension data")
	}
	if v := fmt.Sprint(pq["version"]); v != "1" {
		return "", false, coded(CodeInvalid, "unsupported APQ version")
	}
	hash, _ := pq["sha256Hash"].(string)
	if hash == "" {
		return "", false, coded(CodeInvalid, "invalid APQ extension data: no sha256Hash")
	}
	return hash, true, nil
}
