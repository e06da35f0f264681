package web

import (
	"context"
	"time"
)

// Store keeps sessions on the server, by session ID: the cookie carries only
// the ID. The memory store (MemoryStore) is in this package; the Redis and
// PostgreSQL stores are in modules of their own (redisstore, and data/pgstore in the data module),
// so that an application imports only the client it uses. The cookie store
// (CookieStore) keeps the whole session in the cookie instead.
//
// A Store is used by many requests at once and must be safe for concurrent
// use. Its methods receive a context that should bound them: the sessions
// give each call the request's values and a deadline of its own
// (SessionsConfig.StoreTimeout). The data is opaque to the store: an encoded
// session, a few hundred bytes for a typical one.
//
// Writing is split in two so that a session that ended stays ended: Create
// writes a session under an ID the sessions have just drawn, and Update
// writes only over a session that is still there. A request still in flight
// with a copy of a cookie that a sign-out destroyed meanwhile (its Delete
// came between the request's Load and its save) therefore finds nothing to
// update, and the ID does not come back. github.com/plinth-go/plinth/web/storetest
// checks a store against this contract.
type Store interface {
	// Load returns the data saved under id, or nil data and a nil error when
	// there is none: never saved, deleted, or past its expiry. An error
	// means the store could not answer (the request then fails with 503).
	Load(ctx context.Context, id string) ([]byte, error)

	// Create saves data under id, a new ID (256 random bits the sessions
	// have just drawn), until expiry; the store may forget it any time
	// after expiry (Load must not return it). An expiry already past saves
	// nothing. Create must not replace data id still holds: it returns an
	// error instead (which never happens with random IDs, but a store must
	// not let a write meant for a new session land on an existing one).
	Create(ctx context.Context, id string, data []byte, expiry time.Time) error

	// Update replaces the data and the expiry of the session under id, only
	// if id holds one (saved, not deleted, not past its expiry), and
	// reports whether it did. It never creates: a deleted or expired ID
	// stays gone, as one atomic step against a concurrent Delete (Redis's
	// SET XX, PostgreSQL's UPDATE ... WHERE id = ...). An expiry already
	// past removes the session (and reports whether there was one).
	Update(ctx context.Context, id string, data []byte, expiry time.Time) (bool, error)

	// Delete removes what is saved under id; deleting an ID that holds
	// nothing is not an error.
	Delete(ctx context.Context, id string) error

	// Ping reports whether the store can be reached. Sessions.Attach makes
	// it the App's degraded check "sessions": /readyz reports the store
	// as degraded while Ping fails, and stays 200 (a store every instance
	// shares must not take them all out of rotation at once).
	Ping(ctx context.Context) error
}

// OpenStore opens a Store from a URL given in PLINTH_SESSION_STORE (or
// SessionsConfig.StoreURL), such as "redis://127.0.0.1:6379/0" or
// "postgres://user@host/db". The modules with third-party clients export
// one, for SessionsConfig.Openers: redisstore.OpenSessionStore, pgstore.Open.
type OpenStore func(ctx context.Context, url string) (Store, error)

// ErrSessionExists is what a Store's Create returns (wrapped or not) when
// the ID already holds a session: Create never overwrites.
const ErrSessionExists = sessionError("web: Create: the session ID already holds a session")

// renewedKey marks the context of a Create for a session that was renewed
// (Session.Renew: a sign-in, a change of privilege). The MemoryStore keeps
// such sessions apart, and evicts them only when it holds nothing else; the
// other stores do not evict, and ignore it.
type renewedKey struct{}

// withRenewed returns ctx marked as creating a renewed session.
func withRenewed(ctx context.Context) context.Context {
	return context.WithValue(ctx, renewedKey{}, true)
}

// isRenewed reports whether ctx was marked by withRenewed.
func isRenewed(ctx context.Context) bool {
	v, _ := ctx.Value(renewedKey{}).(bool)
	return v
}
