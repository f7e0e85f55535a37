package offline

import (
	lru "github.com/hashicorp/golang-lru/v2"
)

// sentenceCacheSize bounds the sentence vectors the answer composer keeps
// (a sentence and its vector take a few hundred bytes).
const sentenceCacheSize = 4096

// sentenceVectors remembers the sparse vectors of evidence sentences. The
// composer scores every sentence of every evidence chunk against the
// question, and the same chunks come back for related questions, so most
// sentences were featurised and hashed before; a vector depends only on
// the sentence. Vectors are never modified once built, so they are shared.
var sentenceVectors = func() *lru.Cache[string, sparseVector] {
	c, err := lru.New[string, sparseVector](sentenceCacheSize)
	if err != nil {
		panic(err)
	}
	return c
}()

// sentenceVector returns the sparse embedding of an evidence sentence.
func sentenceVector(s string) sparseVector {
	if v, ok := sentenceVectors.Get(s); ok {
		return v
	}
	v := sparseHash(features(s))
	sentenceVectors.Add(s, v)
	return v
}
