package main

import (
	"context"
	"embed"
	"io/fs"

	"github.com/plinth-go/plinth/data"
)

// migrations holds the shop's schema, one directory per engine (their
// identity columns differ). The files are numbered from 1001 so that they
// can share ./data.db with the quickstart's migrations (numbered from 1),
// which record their versions in the same table.
//
//go:embed migrations
var migrations embed.FS

// migrate applies the migrations of db's engine.
func migrate(ctx context.Context, db *data.DB) ([]data.Migration, error) {
	dir, err := fs.Sub(migrations, "migrations/"+string(db.Dialect()))
	if err != nil {
		return nil, err
	}
	return db.Migrate(ctx, dir)
}
