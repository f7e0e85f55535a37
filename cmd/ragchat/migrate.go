package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"

	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/store"
)

// runMigrate applies pending migrations (up) or prints the applied version
// (version). PostgreSQL uses the versioned SQL files in migrations/;
// SQLite is created and upgraded by Ent's auto-migration.
func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("migrate", stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, "usage: ragchat migrate up|version") }
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || (fs.Arg(0) != "up" && fs.Arg(0) != "version") {
		return usagef("want 'up' or 'version'")
	}
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	if fs.Arg(0) == "up" {
		db, err := openDB(ctx, cfg, slog.Default(), true)
		if err != nil {
			return err
		}
		defer db.Close()
		return printVersion(ctx, stdout, cfg, db.SQL)
	}
	if cfg.Database.URL == "" {
		fmt.Fprintf(stdout, "sqlite %s: schema managed by Ent auto-migration (run 'ragchat migrate up' or 'ragchat serve')\n", cfg.Database.SQLitePath)
		return nil
	}
	pool, err := sql.Open("postgres", cfg.Database.URL)
	if err != nil {
		return err
	}
	defer pool.Close()
	return printVersion(ctx, stdout, cfg, pool)
}

// printVersion prints the applied migration version.
func printVersion(ctx context.Context, w io.Writer, cfg config.Config, pool *sql.DB) error {
	if cfg.Database.URL == "" {
		fmt.Fprintf(w, "sqlite %s: schema up to date\n", cfg.Database.SQLitePath)
		return nil
	}
	v, dirty, err := store.MigrationVersion(ctx, pool)
	if err != nil {
		return err
	}
	state := "clean"
	if dirty {
		state = "DIRTY: the last migration failed half-way; fix it by hand and force the version"
	}
	fmt.Fprintf(w, "postgres %s: migration version %d (%s)\n", store.RedactedURL(cfg.Database.URL), v, state)
	return nil
}
