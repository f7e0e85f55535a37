// Command migrationdiff writes the next versioned PostgreSQL migration: the
// difference between the Ent schema and the state that the existing files in
// migrations/ produce. It is what `make migration NAME=…` runs, against a
// throwaway cluster from scripts/pgtest.sh (RAGCHAT_TEST_DATABASE_URL).
//
// It creates a scratch database on that server, replays migrations/ into it
// (so hand-written files such as the pgvector extension count), asks Atlas
// (through Ent) for the difference, writes it as NAME's up and down files in
// golang-migrate format, updates atlas.sum, and drops the scratch database.
// When the schema and migrations/ already agree it writes nothing.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"net/url"
	"os"
	"regexp"
	"time"

	atlasmigrate "ariga.io/atlas/sql/migrate"
	"ariga.io/atlas/sql/sqltool"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql/schema"
	_ "github.com/lib/pq"

	"github.com/ragchat/ragchat/ent/migrate"
)

// validName is what a migration name may look like: it becomes part of a
// file name.
var validName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)

func main() {
	name := flag.String("name", "", "the migration's name, in snake_case (required)")
	dir := flag.String("dir", "migrations", "the migration directory")
	flag.Parse()
	if !validName.MatchString(*name) {
		log.Fatalf("migrationdiff: -name must be snake_case (a-z, 0-9, _), got %q", *name)
	}
	admin := os.Getenv("RAGCHAT_TEST_DATABASE_URL")
	if admin == "" {
		log.Fatal("migrationdiff: RAGCHAT_TEST_DATABASE_URL is not set; run it through `make migration NAME=…` (scripts/pgtest.sh run)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := run(ctx, admin, *dir, *name); err != nil {
		log.Fatalf("migrationdiff: %v", err)
	}
}

// run diffs against a scratch database created on the admin URL's server.
func run(ctx context.Context, adminURL, dir, name string) error {
	admin, err := sql.Open("postgres", adminURL)
	if err != nil {
		return err
	}
	defer admin.Close()
	scratch := fmt.Sprintf("ragchat_migrationdiff_%d", time.Now().UnixNano())
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+scratch+` TEMPLATE template1`); err != nil {
		return fmt.Errorf("create scratch database: %w", err)
	}
	defer func() {
		if _, err := admin.ExecContext(context.WithoutCancel(ctx), `DROP DATABASE IF EXISTS `+scratch+` WITH (FORCE)`); err != nil {
			log.Printf("migrationdiff: drop %s: %v", scratch, err)
		}
	}()
	u, err := url.Parse(adminURL)
	if err != nil {
		return fmt.Errorf("parse RAGCHAT_TEST_DATABASE_URL: %w", err)
	}
	u.Path = "/" + scratch

	migDir, err := sqltool.NewGolangMigrateDir(dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	// Rehash, so that hand-written files (the pgvector extension) count in
	// the directory's checksum.
	sum, err := migDir.Checksum()
	if err != nil {
		return fmt.Errorf("checksum %s: %w", dir, err)
	}
	if err := atlasmigrate.WriteSumFile(migDir, sum); err != nil {
		return fmt.Errorf("write %s/atlas.sum: %w", dir, err)
	}
	before, err := migDir.Files()
	if err != nil {
		return err
	}
	err = migrate.NamedDiff(ctx, u.String(), name,
		schema.WithDir(migDir),
		schema.WithMigrationMode(schema.ModeReplay),
		schema.WithDialect(dialect.Postgres),
		schema.WithFormatter(sqltool.GolangMigrateFormatter),
		schema.WithDropColumn(true),
		schema.WithDropIndex(true),
	)
	if err != nil {
		return err
	}
	after, err := migDir.Files()
	if err != nil {
		return err
	}
	if len(after) == len(before) {
		fmt.Println("migrationdiff: the Ent schema and", dir, "agree; no migration written")
		return nil
	}
	for _, f := range after[len(before):] {
		fmt.Printf("migrationdiff: wrote %s/%s\n", dir, f.Name())
	}
	return nil
}
