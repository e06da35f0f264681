package main

import (
	"context"
	"database/sql"
	"embed"
	"io/fs"

	"github.com/plinth-go/plinth/data"
)

// note is the quickstart's resource.
type note struct {
	ID   int    `json:"id"`
	Text string `json:"text"`
	Link string `json:"link,omitempty"`
}

// migrations holds the schema, one directory per engine (SQLite's and
// PostgreSQL's column types differ).
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

// store keeps notes in the database (SQLite by default, PostgreSQL when
// PLINTH_DATABASE_URL or DATABASE_URL says so), through database/sql: the
// queries use $1, $2, which both engines read.
type store struct{ db *sql.DB }

func (s *store) list(ctx context.Context) ([]note, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT id, text, link FROM notes ORDER BY id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []note{}
	for rows.Next() {
		var n note
		if err := rows.Scan(&n.ID, &n.Text, &n.Link); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// get returns the note, or an error that wraps sql.ErrNoRows.
func (s *store) get(ctx context.Context, id int) (note, error) {
	n := note{ID: id}
	err := s.db.QueryRowContext(ctx, "SELECT text, link FROM notes WHERE id = $1", id).Scan(&n.Text, &n.Link)
	return n, err
}

func (s *store) add(ctx context.Context, text, link string) (note, error) {
	n := note{Text: text, Link: link}
	err := s.db.QueryRowContext(ctx, "INSERT INTO notes (text, link) VALUES ($1, $2) RETURNING id", text, link).Scan(&n.ID)
	return n, err
}

// remove deletes the note; data.ErrNotFound when there was none.
func (s *store) remove(ctx context.Context, id int) error {
	res, err := s.db.ExecContext(ctx, "DELETE FROM notes WHERE id = $1", id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return data.ErrNotFound
	}
	return nil
}
