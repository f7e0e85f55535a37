package server

import (
	"context"
	"log/slog"
	"net/url"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/cachesize"
	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/persisted"
)

// persistedOperations builds the persisted operations extension from the
// configuration: the APQ store on the shared table, the manifest when
// RAGCHAT_PERSISTED_MANIFEST names one, and persisted-only mode.
func persistedOperations(cfg config.Config, client *ent.Client, log *slog.Logger) (persisted.Extension, error) {
	ext := persisted.Extension{
		Cache: persisted.NewStore(client, persisted.StoreOptions{
			MaxRows:   cfg.Limits.PersistedQueriesMax,
			FrontSize: cfg.Limits.APQCacheSize,
			Logger:    log,
		}),
		Only: cfg.Limits.PersistedOnly,
	}
	if cfg.Limits.PersistedManifest != "" {
		m, err := persisted.LoadManifest(cfg.Limits.PersistedManifest)
		if err != nil {
			return ext, err
		}
		ext.Manifest = m
	}
	return ext, nil
}

// persistedSize reports the APQ store's front cache.
func persistedSize(c persisted.Cache) cachesize.Size {
	size := cachesize.Size{Name: "graphql_persisted_queries"}
	if s, ok := c.(*persisted.Store); ok {
		size.Entries, size.Bound = s.Len()
	}
	return size
}

// documentIDKeys are the request members that name a persisted document
// instead of sending its text: documentId (the GraphQL-over-HTTP
// persisted documents draft), doc_id and id (Relay's conventions).
var documentIDKeys = []string{"documentId", "doc_id", "id"}

// documentIDFromQuery returns the document id of a GET request's query
// string.
func documentIDFromQuery(q url.Values) string {
	for _, k := range documentIDKeys {
		if v := q.Get(k); v != "" {
			return v
		}
	}
	return ""
}

// documentIDBody is the document id members of a POST body.
type documentIDBody struct {
	DocumentID string `json:"documentId"`
	DocID      string `json:"doc_id"`
	ID         string `json:"id"`
}

// withBodyDocumentID returns ctx carrying the document id of a POST body.
func withBodyDocumentID(ctx context.Context, b documentIDBody) context.Context {
	for _, v := range []string{b.DocumentID, b.DocID, b.ID} {
		if v != "" {
			return persisted.WithDocumentID(ctx, v)
		}
	}
	return ctx
}
