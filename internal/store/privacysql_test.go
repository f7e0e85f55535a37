package store_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// capturingDriver records the text of every query the Ent client sends.
type capturingDriver struct {
	dialect.Driver
	mu   *sync.Mutex
	seen *[]string
}

func (d capturingDriver) Query(ctx context.Context, q string, args, v any) error {
	d.mu.Lock()
	*d.seen = append(*d.seen, q)
	d.mu.Unlock()
	return d.Driver.Query(ctx, q, args, v)
}

// capturing returns a client over db's pool that records its queries, and
// a function returning the last one recorded.
func capturing(db *store.DB) (*ent.Client, func() string) {
	var (
		mu   sync.Mutex
		seen []string
	)
	drv := capturingDriver{Driver: entsql.OpenDB(db.Dialect, db.SQL), mu: &mu, seen: &seen}
	return store.NewClient(drv, db.Dialect), func() string {
		mu.Lock()
		defer mu.Unlock()
		return seen[len(seen)-1]
	}
}

// tablesRead counts how often q reads documents and document_grants (FROM
// or JOIN), whatever the dialect's quoting.
func tablesRead(q string) (documents, grants int) {
	q = strings.NewReplacer("`", "", `"`, "").Replace(q)
	for _, kw := range []string{"FROM ", "JOIN "} {
		documents += strings.Count(q, kw+"documents ") + strings.Count(q, kw+"documents)")
		grants += strings.Count(q, kw+"document_grants ")
	}
	return documents, grants
}

// TestPrivacySQLStatesTheDocumentACLOnce: the privacy SQL of a member's
// query states the document ACL once (docs/ENGINE.md, "Privacy SQL,
// composed once"): a chunk query reads documents once (its document's
// visibility) and the grants once (the ACL's grant test), where it used to
// read documents once and the grants twice, with the principal test four
// times; a source query through its chunk the same. The answers are those
// of the privacy matrix (privacy_test.go): olga (group ops) reads both
// chunks, alice only the public one.
func TestPrivacySQLStatesTheDocumentACLOnce(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		f := seed(t, db.Client)
		c, last := capturing(db)

		require.ElementsMatch(t, []uuid.UUID{f.ChunkPublicA, f.ChunkOpsA}, c.Chunk.Query().IDsX(as(olga)))
		docs, grants := tablesRead(last())
		require.Equal(t, [2]int{1, 1}, [2]int{docs, grants}, "chunks: %s", last())
		require.Equal(t, 2, strings.Count(last(), "principal_kind"), "the principal test (user, group) once: %s", last())

		require.Equal(t, []uuid.UUID{f.ChunkPublicA}, c.Chunk.Query().IDsX(as(alice)))
		require.Empty(t, c.Chunk.Query().Where(chunk.ID(f.ChunkOpsA)).IDsX(as(alice)))

		n := c.Source.Query().Where(source.HasChunk()).CountX(as(alice))
		require.Equal(t, 1, n)
		docs, grants = tablesRead(last())
		require.Equal(t, [2]int{1, 1}, [2]int{docs, grants}, "sources through their chunk: %s", last())
	})
}
