package main

import (
	"context"
	"database/sql"
	"errors"

	_ "modernc.org/sqlite" // registers the "sqlite" driver (pure Go)
)

// Task is the app's resource.
type Task struct {
	ID    int64  `json:"id"`
	Title string `json:"title"`
	Done  bool   `json:"done"`
}

// errNotFound is what the store answers for a task that does not exist.
var errNotFound = errors.New("task not found")

// store keeps the tasks in SQLite through database/sql.
type store struct{ db *sql.DB }

// openStore opens (and creates) the SQLite database at path.
func openStore(ctx context.Context, path string) (*store, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS tasks (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		title TEXT NOT NULL,
		done INTEGER NOT NULL DEFAULT 0)`); err != nil {
		db.Close()
		return nil, err
	}
	return &store{db: db}, nil
}

func (s *store) list(ctx context.Context, limit int) ([]Task, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, title, done FROM tasks ORDER BY id LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Task{}
	for rows.Next() {
		var t Task
		if err := rows.Scan(&t.ID, &t.Title, &t.Done); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

func (s *store) get(ctx context.Context, id int64) (Task, error) {
	t := Task{ID: id}
	err := s.db.QueryRowContext(ctx, `SELECT title, done FROM tasks WHERE id = ?`, id).Scan(&t.Title, &t.Done)
	if errors.Is(err, sql.ErrNoRows) {
		return Task{}, errNotFound
	}
	return t, err
}

func (s *store) create(ctx context.Context, t Task) (Task, error) {
	res, err := s.db.ExecContext(ctx, `INSERT INTO tasks (title, done) VALUES (?, ?)`, t.Title, t.Done)
	if err != nil {
		return Task{}, err
	}
	t.ID, err = res.LastInsertId()
	return t, err
}

func (s *store) update(ctx context.Context, t Task) (Task, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE tasks SET title = ?, done = ? WHERE id = ?`, t.Title, t.Done, t.ID)
	if err != nil {
		return Task{}, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return Task{}, err
	} else if n == 0 {
		return Task{}, errNotFound
	}
	return t, nil
}

func (s *store) delete(ctx context.Context, id int64) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM tasks WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return errNotFound
	}
	return nil
}
