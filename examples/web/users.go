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

// Users keeps the users in memory, seeded with the demo account. A real
// application keeps them in its database (see the data module).
type Users struct {
	mu      sync.RWMutex
	byID    map[string]*User
	byEmail map[string]*User
}

// The demo account, seeded at startup so that the example needs no setup.
const (
	DemoEmail    = "demo@example.com"
	DemoPassword = "demo-password"
)

// NewUsers returns the store with the demo user, its password hashed with
// argon2id.
func NewUsers() (*Users, error) {
	hash, err := web.HashPassword(DemoPassword)
	if err != nil {
		return nil, err
	}
	u := &Users{byID: map[string]*User{}, byEmail: map[string]*User{}}
	u.add(&User{ID: "1", Email: DemoEmail, Name: "Demo", PasswordHash: hash})
	return u, nil
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
// unknown email costs as much as a wrong password (web.CheckPassword with
// ""), so that response times do not tell which emails exist. A match with
// an outdated hash is re-hashed with the current parameters.
func (u *Users) Authenticate(email, password string) (*User, error) {
	u.mu.RLock()
	user := u.byEmail[strings.ToLower(strings.TrimSpace(email))]
	u.mu.RUnlock()
	hash := ""
	if user != nil {
		hash = user.PasswordHash
	}
	ok, upgrade, err := web.CheckPassword(hash, password)
	if err != nil || !ok {
		return nil, err
	}
	if upgrade {
		if h, err := web.HashPassword(password); err == nil {
			u.mu.Lock()
			user.PasswordHash = h
			u.mu.Unlock()
		}
	}
	return user, nil
}
