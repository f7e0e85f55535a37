//go:build ignore

// This program writes a new versioned PostgreSQL migration to ../migrations
// from the difference between the existing migrations and the Ent schema.
// It needs a scratch PostgreSQL database with pgvector available:
//
//	DEV_DATABASE_URL=postgres://…/scratch?sslmode=disable go run -mod=mod ./ent/migrate/main.go <name>
//
// (`make migration NAME=<name>` starts a throwaway cluster and runs it.)
package main

import (
	"context"
	"log"
	"os"

	atlas "ariga.io/atlas/sql/migrate"
	"ariga.io/atlas/sql/sqltool"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql/schema"
	_ "github.com/lib/pq"

	"github.com/ragchat/ragchat/ent/migrate"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatalln("usage: go run -mod=mod ./ent/migrate/main.go <name>")
	}
	devURL := os.Getenv("DEV_DATABASE_URL")
	if devURL == "" {
		log.Fatalln("DEV_DATABASE_URL must name a scratch PostgreSQL database with pgvector")
	}
	dir, err := sqltool.NewGolangMigrateDir("migrations")
	if err != nil {
		log.Fatalf("open migrations dir: %v", err)
	}
	// Rehash so that the hand-written extension migration is part of the
	// directory checksum.
	sum, err := dir.Checksum()
	if err != nil {
		log.Fatalf("checksum: %v", err)
	}
	if err := atlas.WriteSumFile(dir, sum); err != nil {
		log.Fatalf("write sum: %v", err)
	}
	err = migrate.NamedDiff(context.Background(), devURL, os.Args[1],
		schema.WithDir(dir),
		schema.WithMigrationMode(schema.ModeReplay),
		schema.WithDialect(dialect.Postgres),
		schema.WithFormatter(sqltool.GolangMigrateFormatter),
		schema.WithDropColumn(true),
		schema.WithDropIndex(true),
	)
	if err != nil {
		log.Fatalf("generate migration: %v", err)
	}
}
