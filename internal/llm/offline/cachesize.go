package offline

import "github.com/ragchat/ragchat/internal/cachesize"

// CacheSizes implements cachesize.Reporter: the sentence vectors the
// answer composer remembers (sentencecache.go), shared by every offline
// model of the process.
func (m *Model) CacheSizes() []cachesize.Size {
	return []cachesize.Size{{Name: "offline_sentence_vectors", Entries: sentenceVectors.Len(), Bound: sentenceCacheSize}}
}
