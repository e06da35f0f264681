package main

import (
	"context"
	"embed"
	"io/fs"

	"github.com/plinth-go/plinth/data"
	riverjobs "github.com/plinth-go/plinth/jobs/riverjobs"
)

// migrations holds the schema (users, effects), one directory per engine.
//
//go:embed migrations
var migrations embed.FS

// migrate brings River's tables up to date, then applies the migrations of
// db's engine: the example's tables.
func migrate(ctx context.Context, db *data.DB) ([]data.Migration, error) {
	dir, err := fs.Sub(migrations, "migrations/"+string(db.Dialect()))
	if err != nil {
		return nil, err
	}
	return riverjobs.Migrate(ctx, db, dir)
}

// recordEffect writes the one row a job's side effect is: the check counts
// these rows to prove that a job ran once, or again.
func recordEffect(ctx context.Context, db *data.DB, tag string, attempt int, jobID int64) error {
	_, err := db.SQL().ExecContext(ctx, "INSERT INTO effects (tag, attempt, job_id) VALUES ($1, $2, $3)", tag, attempt, jobID)
	return err
}
