package main

import (
	"context"
	"strings"
	"sync"

	"github.com/plinth-go/plinth/web"
)

// User is a signed-up user of the example.
type User struct {
	ID           string
	Email        string
	Name         string
	PasswordHash string
}

// Users keeps the users in memory. A real application keeps them in its
// database (see the data module).
type Users struct {
	mu      sync.RWMutex
	byID    map[string]*User
	byEmail map[string]*User
	demo    bool // the demo account was seeded

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

// NewUsers returns an empty store.
func NewUsers() *Users {
	return &Users{byID: map[string]*User{}, byEmail: map[string]*User{}, passwords: web.NewPasswords(web.PasswordsConfig{})}
}

// SeedDemo adds the demo account, its password hashed with argon2id.
func (u *Users) SeedDemo() error {
	hash, err := u.passwords.Hash(context.Background(), DemoPassword)
	if err != nil {
		return err
	}
	u.add(&User{ID: "1", Email: DemoEmail, Name: "Demo", PasswordHash: hash})
	u.mu.Lock()
	u.demo = true
	u.mu.Unlock()
	return nil
}

// HasDemo reports whether the demo account was seeded: the sign-in page
// then shows its credentials.
func (u *Users) HasDemo() bool {
	u.mu.RLock()
	defer u.mu.RUnlock()
	return u.demo
}

func (u *Users) add(user *User) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.byID[user.ID] = user
	u.byEmail[strings.ToLower(user.Email)] = user
}

// ByID loads a user for web.Auth; an unknown ID is web.ErrNoUser.
func (u *Users) ByID(_ context.Context, id string) (*User, error) {
	u.mu.RLock()
	defer u.mu.RUnlock()
	if user := u.byID[id]; user != nil {
		return user, nil
	}
	return nil, web.ErrNoUser
}

// Authenticate returns the user whose email and password match, or nil. An
// unknown email costs as much as a wrong password (Passwords.Check with
// ""), so that response times do not tell which emails exist. A match with
// an outdated hash is re-hashed with the current parameters. ctx is the
// request's: a sign-in whose request ended leaves the hashing queue
// without hashing.
func (u *Users) Authenticate(ctx context.Context, email, password string) (*User, error) {
	u.mu.RLock()
	user := u.byEmail[strings.ToLower(strings.TrimSpace(email))]
	u.mu.RUnlock()
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
			u.mu.Lock()
			user.PasswordHash = h
			u.mu.Unlock()
		}
	}
	return user, nil
}
