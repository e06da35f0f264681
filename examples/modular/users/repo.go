// Package users is the shop's users module: the users table, the typed
// /users operations, and the guard that other modules use to require a
// known user.
package users

import (
	"context"
	"database/sql"
)

// User is a customer of the shop.
type User struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// Repo keeps users in the database ($1 placeholders: SQLite and
// PostgreSQL both read them).
type Repo struct{ db *sql.DB }

// NewRepo returns the repository on db.
func NewRepo(db *sql.DB) (*Repo, error) { return &Repo{db: db}, nil }

// List returns every user, by id.
func (r *Repo) List(ctx context.Context) ([]User, error) {
	rows, err := r.db.QueryContext(ctx, "SELECT id, name FROM users ORDER BY id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []User{}
	for rows.Next() {
		var u User
		if err := rows.Scan(&u.ID, &u.Name); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// Get returns the user with id; sql.ErrNoRows (a 404) when there is none.
func (r *Repo) Get(ctx context.Context, id int64) (User, error) {
	u := User{ID: id}
	err := r.db.QueryRowContext(ctx, "SELECT name FROM users WHERE id = $1", id).Scan(&u.Name)
	return u, err
}

// ByName returns the user called name; sql.ErrNoRows when there is none.
func (r *Repo) ByName(ctx context.Context, name string) (User, error) {
	u := User{Name: name}
	err := r.db.QueryRowContext(ctx, "SELECT id FROM users WHERE name = $1", name).Scan(&u.ID)
	return u, err
}

// Create adds a user; a name taken already is a unique violation (a 409).
func (r *Repo) Create(ctx context.Context, name string) (User, error) {
	u := User{Name: name}
	err := r.db.QueryRowContext(ctx, "INSERT INTO users (name) VALUES ($1) RETURNING id", name).Scan(&u.ID)
	return u, err
}
