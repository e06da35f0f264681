package web

import (
	"context"
	"time"
)

// Store keeps sessions on the server, by session ID: the cookie carries only
// the ID. The memory store (MemoryStore) is in this package; the Redis and
// PostgreSQL stores are modules of their own (web/redisstore, web/pgstore),
// so that an application imports only the client it uses. The cookie store
// (CookieStore) keeps the whole session in the cookie instead.
//
// A Store is used by many requests at once and must be safe for concurrent
// use. Its methods receive the request's context and should honour its
// cancellation. The data is opaque to the store: an encoded session, a few
// hundred bytes for a typical one.
type Store interface {
	// Load returns the data saved under id, or nil data and a nil error when
	// there is none: never saved, deleted, or past its expiry. An error
	// means the store could not answer (the request then fails with 503).
	Load(ctx context.Context, id string) ([]byte, error)

	// Save saves data under id, replacing what was there, until expiry; the
	// store may forget it any time after expiry (Load must not return it).
	Save(ctx context.Context, id string, data []byte, expiry time.Time) error

	// Delete removes what is saved under id; deleting an ID that holds
	// nothing is not an error.
	Delete(ctx context.Context, id string) error

	// Ping reports whether the store can be reached. Sessions.Attach makes
	// it the App's readiness check "sessions", so that a store that cannot
	// be reached turns /readyz to 503 instead of failing requests.
	Ping(ctx context.Context) error
}

// OpenStore opens a Store from a URL given in PLINTH_SESSION_STORE (or
// SessionsConfig.StoreURL), such as "redis://127.0.0.1:6379/0" or
// "postgres://user@host/db". The modules with third-party clients export
// one, for SessionsConfig.Openers: redisstore.Open, pgstore.Open.
type OpenStore func(ctx context.Context, url string) (Store, error)
