package attachment

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/internal/viewer"
)

// KeyPrefix starts the blob key of every attachment
// ("attachments/<tenant>/<conversation>/<attachment id>").
const KeyPrefix = "attachments/"

// SweepGrace is how old a blob must be before the orphan sweep may delete
// it: an upload stores its bytes before it inserts its row, so a younger
// blob without a row may be an upload in flight.
const SweepGrace = time.Hour

// sweepBatch bounds the keys one database lookup of the sweep checks, and
// SweepLimit the blobs one sweep deletes.
const (
	sweepBatch = 500
	SweepLimit = 1000
)

// SweepOrphans deletes the blobs under KeyPrefix that no attachment row
// names and that are older than SweepGrace at now, at most SweepLimit in
// one pass; it returns how many it deleted. Orphans arise when a process
// stops between the commit that deletes a conversation (and, by the
// cascade, its attachment rows) and the blob deletes that follow it
// (purge.go), or when a blob delete fails. A blob's age is the time in its
// attachment id (a UUIDv7, made just before the bytes are stored); a key
// whose last segment is not a UUIDv7 is never the engine's and is left
// alone. The chat engine's purge runs it (chat.Engine.AddPurgeJob).
func (s *Service) SweepOrphans(ctx context.Context, now time.Time) (int, error) {
	ctx = viewer.SystemJobContext(ctx, viewer.JobPurge)
	keys, err := s.blobs.Keys(ctx, KeyPrefix)
	if err != nil {
		return 0, err
	}
	var old []string
	for _, k := range keys {
		if t, ok := keyTime(k); ok && now.Sub(t) >= SweepGrace {
			old = append(old, k)
		}
	}
	deleted := 0
	for len(old) > 0 && deleted < SweepLimit {
		batch := old[:min(sweepBatch, len(old))]
		old = old[len(batch):]
		named, err := s.client.Attachment.Query().Where(attachment.BlobKeyIn(batch...)).
			Select(attachment.FieldBlobKey).Strings(ctx)
		if err != nil {
			return deleted, err
		}
		live := make(map[string]bool, len(named))
		for _, k := range named {
			live[k] = true
		}
		for _, k := range batch {
			if live[k] || deleted >= SweepLimit {
				continue
			}
			if err := s.blobs.Delete(ctx, k); err != nil {
				return deleted, err
			}
			deleted++
		}
	}
	return deleted, nil
}

// keyTime returns the creation time in the UUIDv7 that ends key.
func keyTime(key string) (time.Time, bool) {
	id, err := uuid.Parse(key[strings.LastIndexByte(key, '/')+1:])
	if err != nil || id.Version() != 7 {
		return time.Time{}, false
	}
	sec, nsec := id.Time().UnixTime()
	return time.Unix(sec, nsec), true
}
