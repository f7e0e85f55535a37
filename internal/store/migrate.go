package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"entgo.io/ent/dialect/sql/schema"
	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database/postgres"
	"github.com/golang-migrate/migrate/v4/source/iofs"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/migrations"
)

// MigratePostgres applies every pending versioned migration in migrations.FS.
// golang-migrate takes a PostgreSQL advisory lock, so several instances
// starting together apply each migration once.
func MigratePostgres(ctx context.Context, pool *sql.DB) error {
	m, err := newMigrator(ctx, pool)
	if err != nil {
		return err
	}
	defer m.Close()
	if err := m.Up(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return fmt.Errorf("store: apply migrations: %w", err)
	}
	return nil
}

// MigratePostgresTo migrates up or down to version exactly (tests use it to
// write rows as an older schema had them, then migrate up).
func MigratePostgresTo(ctx context.Context, pool *sql.DB, version uint) error {
	m, err := newMigrator(ctx, pool)
	if err != nil {
		return err
	}
	defer m.Close()
	if err := m.Migrate(version); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return fmt.Errorf("store: migrate to %d: %w", version, err)
	}
	return nil
}

// MigrationVersion reports the applied migration version and whether the
// last migration failed half-way (dirty).
func MigrationVersion(ctx context.Context, pool *sql.DB) (version uint, dirty bool, err error) {
	m, err := newMigrator(ctx, pool)
	if err != nil {
		return 0, false, err
	}
	defer m.Close()
	version, dirty, err = m.Version()
	if errors.Is(err, migrate.ErrNilVersion) {
		return 0, false, nil
	}
	return version, dirty, err
}

func newMigrator(ctx context.Context, pool *sql.DB) (*migrate.Migrate, error) {
	src, err := iofs.New(migrations.FS, ".")
	if err != nil {
		return nil, fmt.Errorf("store: read embedded migrations: %w", err)
	}
	conn, err := pool.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: migration connection: %w", err)
	}
	// WithConnection (unlike WithInstance) leaves the pool open on Close.
	drv, err := postgres.WithConnection(ctx, conn, &postgres.Config{MigrationsTable: "schema_migrations"})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("store: migration driver: %w", err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "postgres", drv)
	if err != nil {
		drv.Close()
		return nil, fmt.Errorf("store: migrator: %w", err)
	}
	return m, nil
}

// entMigrations serialises Ent's automatic migrations within a process:
// they set up the generated package-level table definitions
// (ent/migrate.Tables) in place, so two at once race (two SQLite
// databases opened at once by parallel tests).
var entMigrations sync.Mutex

// MigrateSQLite creates or upgrades the SQLite schema with Ent's automatic
// migration. The pgvector HNSW index has no SQLite equivalent (embeddings
// are searched in Go there), so it is left out, and partial-index
// predicates written in PostgreSQL's canonical form are translated.
func MigrateSQLite(ctx context.Context, client *ent.Client) error {
	entMigrations.Lock()
	err := client.Schema.Create(ctx,
		schema.WithHooks(sqliteTables),
	)
	entMigrations.Unlock()
	if err != nil {
		return fmt.Errorf("store: migrate SQLite schema: %w", err)
	}
	if err := backfillSQLiteHashes(ctx, client); err != nil {
		return err
	}
	return migrateSQLiteSearch(ctx, client)
}

// sqliteIndexWhere maps partial-index predicates from PostgreSQL's canonical
// form to SQLite.
var sqliteIndexWhere = map[string]string{
	"attempt_one_pending_per_conversation": "status = 'PENDING'",
}

// sqliteTables adapts the tables Ent plans to create to SQLite: no HNSW
// index, SQLite partial-index predicates. Ent's table descriptions are
// package-level values shared with the PostgreSQL path, so they are copied,
// never changed in place.
func sqliteTables(next schema.Creator) schema.Creator {
	return schema.CreateFunc(func(ctx context.Context, tables ...*schema.Table) error {
		out := make([]*schema.Table, len(tables))
		for i, t := range tables {
			c := *t
			c.Indexes = make([]*schema.Index, 0, len(t.Indexes))
			for _, idx := range t.Indexes {
				if idx.Name == VectorIndexName || searchIndexNames[idx.Name] {
					continue
				}
				if where, ok := sqliteIndexWhere[idx.Name]; ok && idx.Annotation != nil {
					ic, ac := *idx, *idx.Annotation
					ac.Where = where
					ic.Annotation = &ac
					idx = &ic
				}
				c.Indexes = append(c.Indexes, idx)
			}
			out[i] = &c
		}
		return next.Create(ctx, out...)
	})
}

// VectorIndexName is the name of the HNSW index on chunks.embedding.
const VectorIndexName = "chunks_embedding_hnsw"
