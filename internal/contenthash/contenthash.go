// Package contenthash is the content hash of a chunk's text: the SHA-256
// of its UTF-8 bytes in lowercase hex. Chunks store it (set by an Ent hook,
// ent/schema/chunk.go) and citation snapshots copy it, so that an answer's
// staleness can tell whether the current version of a document still
// contains the text it cited (internal/staleness/README.md). The
// PostgreSQL backfill computes the same value with
// encode(sha256(convert_to(content, 'UTF8')), 'hex').
package contenthash

import (
	"crypto/sha256"
	"encoding/hex"
)

// Of returns the content hash of s.
func Of(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
