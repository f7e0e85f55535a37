package store

import (
	"context"
	"fmt"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/contenthash"
)

// sqliteHashBatch is how many chunks one backfill round reads.
const sqliteHashBatch = 500

// backfillSQLiteHashes gives the chunks written before content hashes
// their hash, and then every source whose chunk still exists its cited
// chunk hash: the SQLite counterpart of the content_hashes migration's
// backfill (internal/staleness/README.md). SQLite has no SHA-256
// function, so the chunks are hashed here in rounds; once no row lacks a
// hash, a start costs one indexed read of chunks and one update of
// sources that matches nothing.
func backfillSQLiteHashes(ctx context.Context, client *ent.Client) error {
	for {
		n, err := backfillSQLiteChunkRound(ctx, client)
		if err != nil {
			return fmt.Errorf("store: SQLite chunk hashes: %w", err)
		}
		if n < sqliteHashBatch {
			break
		}
	}
	_, err := client.ExecContext(ctx, `UPDATE sources SET chunk_hash = (SELECT c.content_hash FROM chunks c WHERE c.id = sources.chunk_id)
WHERE chunk_hash IS NULL AND chunk_id IS NOT NULL AND EXISTS (SELECT 1 FROM chunks c WHERE c.id = sources.chunk_id AND c.content_hash IS NOT NULL)`)
	if err != nil {
		return fmt.Errorf("store: SQLite source hashes: %w", err)
	}
	return nil
}

// backfillSQLiteChunkRound hashes up to sqliteHashBatch chunks without a
// hash and reports how many it read.
func backfillSQLiteChunkRound(ctx context.Context, client *ent.Client) (int, error) {
	rows, err := client.QueryContext(ctx, `SELECT rowid, content FROM chunks WHERE content_hash IS NULL LIMIT ?`, sqliteHashBatch)
	if err != nil {
		return 0, err
	}
	type pending struct {
		rowid int64
		hash  string
	}
	var todo []pending
	for rows.Next() {
		var (
			p       pending
			content string
		)
		if err := rows.Scan(&p.rowid, &content); err != nil {
			rows.Close()
			return 0, err
		}
		p.hash = contenthash.Of(content)
		todo = append(todo, p)
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for _, p := range todo {
		if _, err := client.ExecContext(ctx, `UPDATE chunks SET content_hash = ? WHERE rowid = ?`, p.hash, p.rowid); err != nil {
			return 0, err
		}
	}
	return len(todo), nil
}
