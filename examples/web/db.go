package main

import (
	"context"
	"embed"
	"io/fs"
	"os"

	"github.com/plinth-go/plinth/data"
	riverjobs "github.com/plinth-go/plinth/jobs/riverjobs"
)

// migrations holds the site's schema (users, job_effects), one directory
// per engine.
//
//go:embed migrations
var migrations embed.FS

// defaultDatabase is the SQLite file used when neither PLINTH_DATABASE_URL
// nor DATABASE_URL is set: the example runs with no setup.
const defaultDatabase = "sqlite:./web.db"

// openDB opens the database the environment names (PLINTH_DATABASE_URL,
// else DATABASE_URL, else defaultDatabase), then brings River's tables
// (the job queue) and the site's up to date. Instances starting together
// migrate one after the other (an advisory lock on PostgreSQL).
func openDB(ctx context.Context) (*data.DB, error) {
	cfg := data.Config{}
	if os.Getenv("PLINTH_DATABASE_URL") == "" && os.Getenv("DATABASE_URL") == "" {
		cfg.URL = defaultDatabase
	}
	db, err := data.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// migrate applies River's migrations and the site's for db's engine.
func migrate(ctx context.Context, db *data.DB) error {
	dir, err := fs.Sub(migrations, "migrations/"+string(db.Dialect()))
	if err != nil {
		return err
	}
	_, err = riverjobs.Migrate(ctx, db, dir)
	return err
}
