package persisted

import (
	"context"
	"fmt"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Error codes of persisted operations (extensions.code). The first is
// Apollo's own, which its clients react to by sending the query again.
const (
	CodeNotFound   = "PERSISTED_QUERY_NOT_FOUND"
	CodeNotAllowed = "PERSISTED_QUERY_NOT_ALLOWED"
	CodeInvalid    = "PERSISTED_QUERY_INVALID"
)

// notFoundMessage is the message Apollo's link also recognises.
const notFoundMessage = "PersistedQueryNotFound"

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
//     query is verified (SHA-256, at most MaxQueryBytes) and cached.
type Extension struct {
	Cache    Cache
	Manifest *Manifest
	Only     bool
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
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
	if p.Query == "" {
		q, ok := e.Cache.Get(ctx, hash)
		if !ok {
			return coded(CodeNotFound, notFoundMessage)
		}
		p.Query = q
		return nil
	}
	if len(p.Query) > MaxQueryBytes {
		return coded(CodeInvalid, "a persisted query is at most %d bytes", MaxQueryBytes)
	}
	if Hash(p.Query) != hash {
		return coded(CodeInvalid, "provided APQ hash does not match query")
	}
	e.Cache.Add(ctx, hash, p.Query)
	return nil
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
