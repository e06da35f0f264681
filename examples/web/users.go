package main

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/web"
)

// User is a signed-up user of the example.
type User struct {
	ID           string
	Email        string
	Name         string
	PasswordHash string
}

// Users keeps the users in the app's database (the users table), so that
// every instance of the site sees the same accounts.
type Users struct {
	db   *data.DB
	demo atomic.Bool // the demo account was seeded

	// passwords bounds the argon2id work: at most GOMAXPROCS hashes at once
	// (about 19 MiB each), a bounded queue behind them (503 with
	// Retry-After past it), and a wait that ends with the request.
	passwords *web.Passwords
}

// The demo account, seeded by SeedDemo: a known password, so only for a
// demonstration, never in a build that others can reach.
const (
	DemoEmail    = "demo@example.com"
	DemoPassword = "demo-password"
)

// NewUsers returns the users kept in db.
func NewUsers(db *data.DB) *Users {
	return &Users{db: db, passwords: web.NewPasswords(web.PasswordsConfig{})}
}

// SeedDemo adds the demo account, its password hashed with argon2id,
// unless it exists: instances starting together add it once (the email is
// unique; the others' inserts do nothing).
func (u *Users) SeedDemo(ctx context.Context) error {
	var n int
	if err := u.db.QueryRow(ctx, "SELECT count(*) FROM users WHERE email = $1", DemoEmail).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		hash, err := u.passwords.Hash(ctx, DemoPassword)
		if err != nil {
			return err
		}
		if _, err := u.db.Exec(ctx, "INSERT INTO users (email, name, password_hash) VALUES ($1, $2, $3) ON CONFLICT (email) DO NOTHING",
			DemoEmail, "Demo", hash); err != nil {
			return err
		}
	}
	u.demo.Store(true)
	return nil
}

// HasDemo reports whether the demo account was seeded: the sign-in page
// then shows its credentials.
func (u *Users) HasDemo() bool { return u.demo.Load() }

// ByID loads a user for web.Auth; an unknown ID is web.ErrNoUser. A
// database that cannot be reached is an error (a 503 with Retry-After,
// through data.Attach's error mapping), never "signed out".
func (u *Users) ByID(ctx context.Context, id string) (*User, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return nil, web.ErrNoUser
	}
	return u.one(ctx, "SELECT id, email, name, password_hash FROM users WHERE id = $1", n, web.ErrNoUser)
}

// byEmail loads the user with email (compared in lower case), or nil.
func (u *Users) byEmail(ctx context.Context, email string) (*User, error) {
	return u.one(ctx, "SELECT id, email, name, password_hash FROM users WHERE email = $1",
		strings.ToLower(strings.TrimSpace(email)), nil)
}

// one runs query for one user; no row gives missing (nil: no user, no
// error).
func (u *Users) one(ctx context.Context, query string, arg any, missing error) (*User, error) {
	var user User
	var id int64
	err := u.db.QueryRow(ctx, query, arg).Scan(&id, &user.Email, &user.Name, &user.PasswordHash)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, missing
	}
	if err != nil {
		return nil, err
	}
	user.ID = strconv.FormatInt(id, 10)
	return &user, nil
}

// Authenticate returns the user whose email and password match, or nil. An
// unknown email costs as much as a wrong password (Passwords.Check with
// ""), so that response times do not tell which emails exist. A match with
// an outdated hash is re-hashed with the current parameters. ctx is the
// request's: a sign-in whose request ended leaves the hashing queue
// without hashing.
func (u *Users) Authenticate(ctx context.Context, email, password string) (*User, error) {
	user, err := u.byEmail(ctx, email)
	if err != nil {
		return nil, err
	}
	hash := ""
	if user != nil {
		hash = user.PasswordHash
	}
	ok, upgrade, err := u.passwords.Check(ctx, hash, password)
	if err != nil || !ok {
		return nil, err
	}
	if upgrade {
		if h, err := u.passwords.Hash(ctx, password); err == nil {
			// Best effort: the sign-in stands if the update fails.
			id, _ := strconv.ParseInt(user.ID, 10, 64)
			if _, err := u.db.Exec(ctx, "UPDATE users SET password_hash = $1 WHERE id = $2", h, id); err == nil {
				user.PasswordHash = h
			}
		}
	}
	return user, nil
}
