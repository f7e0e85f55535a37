// Package blobstore keeps attachment bytes under opaque keys. A Store is
// either the local filesystem under the data directory (the default) or an
// S3-compatible bucket through gocloud.dev/blob (OpenURL). Keys are the
// engine's own (never a client's) and are never exposed through the API.
package blobstore

import (
	"context"
	"errors"
	"io"
)

// ErrNotFound is returned by Get for a key that holds no blob.
var ErrNotFound = errors.New("blobstore: not found")

// A Store keeps blobs under keys. Implementations are safe for concurrent
// use. Delete of a missing key succeeds, so purges can be retried.
type Store interface {
	// Put stores the bytes of r under key, replacing any blob there.
	Put(ctx context.Context, key string, r io.Reader) error
	// Get returns the blob under key, or ErrNotFound.
	Get(ctx context.Context, key string) ([]byte, error)
	// Delete removes the blob under key; a missing key is no error.
	Delete(ctx context.Context, key string) error
	// Keys lists every key under prefix (for tests and audits).
	Keys(ctx context.Context, prefix string) ([]string, error)
	// Close releases the store's resources.
	Close() error
}
