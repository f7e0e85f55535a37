package knowledge

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/pgvector/pgvector-go"
	"github.com/stretchr/testify/assert"

	"github.com/ragchat/ragchat/ent"
)

func TestTopKKeepsTheBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, k := range []int{1, 3, 10, 50} {
		var all []scored
		best := &topK{k: k}
		for range 200 {
			// Few distinct scores, so that ties are common.
			s := scored{id: uuid.New(), score: float64(rng.IntN(20)) / 20}
			all = append(all, s)
			best.offer(s)
		}
		slices.SortFunc(all, func(a, b scored) int {
			switch {
			case worse(a, b):
				return 1
			case worse(b, a):
				return -1
			}
			return 0
		})
		var want []uuid.UUID
		for _, s := range all[:k] {
			want = append(want, s.id)
		}
		assert.ElementsMatch(t, want, best.ids(), "k=%d", k)
	}
}

func TestVectorCacheIsBounded(t *testing.T) {
	c := &vectorCache{max: 3}
	mk := func(n int) []*ent.Chunk {
		out := make([]*ent.Chunk, n)
		for i := range out {
			out[i] = &ent.Chunk{ID: uuid.New(), Embedding: pgvector.NewVector([]float32{float32(i + 1)})}
		}
		return out
	}
	first := mk(2)
	c.store(first)
	found, missing := c.lookup([]uuid.UUID{first[0].ID, first[1].ID, uuid.New()})
	assert.Len(t, found, 2)
	assert.Len(t, missing, 1)
	assert.Equal(t, []float32{2}, found[first[1].ID].vec)

	c.store(mk(2)) // 4 > 3: starts over
	assert.LessOrEqual(t, len(c.vecs), 3)
	_, missing = c.lookup([]uuid.UUID{first[0].ID})
	assert.Len(t, missing, 1, "the old entries were dropped")

	off := &vectorCache{max: -1}
	off.store(mk(1))
	assert.Empty(t, off.vecs)
}

func TestVersionAtLeast(t *testing.T) {
	tests := []struct {
		version string
		want    bool
	}{
		{"0.8.0", true}, {"0.8", true}, {"0.10.1", true}, {"1.0.0", true},
		{"0.7.4", false}, {"0.5.1", false}, {"", false}, {"x.y", false},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, versionAtLeast(tc.version, 0, 8), tc.version)
	}
}

func TestSessionSettings(t *testing.T) {
	r := NewRetriever(nil, RetrieverOptions{MaxScanTuples: 5000})
	assert.Equal(t, []string{
		"SET LOCAL hnsw.ef_search = 40",
		"SET LOCAL hnsw.iterative_scan = relaxed_order",
		"SET LOCAL hnsw.max_scan_tuples = 5000",
	}, r.sessionSettings(pgCaps{iterativeScan: true}, 5))
	assert.Equal(t, []string{"SET LOCAL hnsw.ef_search = 80"}, r.sessionSettings(pgCaps{}, 20))
	assert.Equal(t, "SET LOCAL hnsw.ef_search = 1000", r.sessionSettings(pgCaps{}, 400)[0], "capped at pgvector's maximum")
}

func TestOptionsDefaults(t *testing.T) {
	assert.Equal(t, Options{ChunkTokens: 400, OverlapTokens: 60, EmbedBatch: 32, MaxDocumentBytes: 2 << 20}, Options{}.withDefaults())
	assert.Equal(t, 10, Options{ChunkTokens: 40}.withDefaults().OverlapTokens, "overlap is capped at a quarter of the chunk")
	assert.Equal(t, -1, Options{OverlapTokens: -5}.withDefaults().OverlapTokens, "negative turns overlap off")
}
