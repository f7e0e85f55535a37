package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io"

	"gocloud.dev/blob"
	// The schemes OpenURL accepts: s3:// (S3 and S3-compatible stores)
	// and mem:// (an in-memory bucket, for tests).
	_ "gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"
)

// Bucket stores blobs in a gocloud.dev/blob bucket: S3 or an
// S3-compatible store (MinIO, Ceph, R2, …) through s3blob.
type Bucket struct{ b *blob.Bucket }

// OpenURL opens the bucket at url, e.g.
// "s3://attachments?region=eu-central-1" or, for an S3-compatible store,
// "s3://attachments?endpoint=https://minio.internal:9000&use_path_style=true&region=us-east-1".
// Credentials come from the usual AWS sources (environment, shared
// files, instance roles), never from the URL.
func OpenURL(ctx context.Context, url string) (*Bucket, error) {
	b, err := blob.OpenBucket(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("blobstore: open bucket: %w", err)
	}
	return &Bucket{b: b}, nil
}

// Put implements Store.
func (s *Bucket) Put(ctx context.Context, key string, r io.Reader) error {
	w, err := s.b.NewWriter(ctx, key, nil)
	if err != nil {
		return fmt.Errorf("blobstore: %w", err)
	}
	if _, err := io.Copy(w, r); err != nil {
		_ = w.Close()
		return fmt.Errorf("blobstore: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("blobstore: %w", err)
	}
	return nil
}

// Get implements Store.
func (s *Bucket) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := s.b.ReadAll(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("blobstore: %w", err)
	}
	return b, nil
}

// Delete implements Store.
func (s *Bucket) Delete(ctx context.Context, key string) error {
	err := s.b.Delete(ctx, key)
	if err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("blobstore: %w", err)
	}
	return nil
}

// Keys implements Store.
func (s *Bucket) Keys(ctx context.Context, prefix string) ([]string, error) {
	it := s.b.List(&blob.ListOptions{Prefix: prefix})
	var keys []string
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return keys, nil
		}
		if err != nil {
			return nil, fmt.Errorf("blobstore: %w", err)
		}
		keys = append(keys, obj.Key)
	}
}

// Close implements Store.
func (s *Bucket) Close() error { return s.b.Close() }
