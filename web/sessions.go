package web

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/plinth-go/plinth"
)

// Sessions gives handlers a session per browser, kept in a Store (or in the
// cookie itself, with a CookieStore). Make one with NewSessions, install it
// with Attach (or its Middleware on the routes that use sessions), and reach
// the request's session with SessionOf.
//
// Sessions are lazy: a request whose handler never calls SessionOf (or
// something that does: CSRFToken, FlashesOf, Auth) reads no cookie, calls no
// store, sets no cookie and allocates nothing (TestUntouchedSessionAllocs).
// A session is saved, and its cookie set, just before the response starts,
// and only when it changed, is new, was renewed or destroyed, or its idle
// deadline needs moving. A response whose handler used the session gets
// Vary: Cookie and, unless the handler set its own, Cache-Control: no-store:
// it shows one visitor's state (who is signed in, a flash), which a shared
// cache must not give to another, nor the browser show again from its
// cache when Back is pressed after signing out.
type Sessions struct {
	set  sessionSettings
	pool sync.Pool
}

var (
	sessionsKey = plinth.NewKey[Sessions]("web.sessions")
	sessionKey  = plinth.NewKey[Session]("web.session")
	// sessionsEndedKey is set once the middleware has returned, so that a
	// SessionOf from an error page says so instead of starting a session.
	sessionsEndedKey = plinth.NewKey[Sessions]("web.sessions.ended")
)

// NewSessions returns Sessions configured by cfg and the PLINTH_SESSION_*
// variables (see SessionsConfig). It fails on a bad setting or a store URL
// that cannot be opened, naming it; a store that opens but cannot be reached
// is not an error here: readiness reports it (Attach).
func NewSessions(cfg SessionsConfig) (*Sessions, error) {
	set, err := cfg.resolve(envLookup)
	if err != nil {
		return nil, err
	}
	s := &Sessions{set: set}
	s.pool.New = func() any { return new(Session) }
	return s, nil
}

// Store returns the store the sessions are kept in.
func (s *Sessions) Store() Store { return s.set.store }

// ReadinessTimeout bounds the store's Ping in the readiness check Attach
// adds.
const ReadinessTimeout = 2 * time.Second

// Attach installs the sessions on every route of app (the Middleware, with
// app.Use), adds the degraded check "sessions" (the store's Ping, with
// App.DegradedCheck: /readyz names the store "degraded" while it cannot be
// reached, and stays 200), logs the store in use
// when the App starts serving (at info level: `msg="web: sessions"
// store="redis addr=127.0.0.1:6379 db=0 ..."`, from the store's String
// method, never with a password) and, when the store holds resources (it
// implements io.Closer, as the stores opened from a URL do), closes it
// after the drain.
func (s *Sessions) Attach(app *plinth.App) {
	app.DeclareEnv(sessionEnvNames()...) // not misspellings: see App.DeclareEnv
	app.Use(s.Middleware())
	app.OnStart(func(ctx context.Context) error {
		attrs := []slog.Attr{slog.String("store", describeStore(s.set.store))}
		if s.set.storeWait > 0 {
			attrs = append(attrs, slog.Duration("store_timeout", s.set.storeWait))
		}
		s.set.log.LogAttrs(ctx, slog.LevelInfo, "web: sessions", attrs...)
		return nil
	})
	if s.set.cookie == nil {
		// Degraded, not failed: every instance shares the store, so a
		// store that is down would take every instance out of its load
		// balancer at once, turning a restart of a second into a full
		// outage. The requests wait for it instead (StoreTimeout), and
		// pages that use no session keep working. An application that
		// prefers the instance out of rotation registers the store's Ping
		// with App.ReadinessCheck itself (docs/deploy.md).
		app.DegradedCheck("sessions", ReadinessTimeout, s.set.store.Ping)
	}
	if c, ok := s.set.store.(io.Closer); ok && s.set.openedURL != "" {
		app.OnStop(func(context.Context) error { return c.Close() })
	}
}

// Middleware makes the sessions reachable from the handlers after it
// (SessionOf) and saves the session, if the request used it, before the
// response starts. A request that does not use its session pays for one
// pointer kept on its Ctx.
func (s *Sessions) Middleware() plinth.Middleware {
	return func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			sessionsKey.Set(c, s)
			err := next(c)
			// From here on no session is started and no store called: an
			// error page rendered after this returns (the handler's error,
			// the timeout's 503) runs outside the store's deadlines.
			sessionsKey.Set(c, nil)
			sessionsEndedKey.Set(c, s)
			if sess := sessionKey.Get(c); sess != nil {
				if cerr := sess.end(); cerr != nil && err == nil {
					err = cerr
				}
				sess.stopStore()
				if err != nil {
					// The error page may still read the session (who is
					// signed in), but its changes are not saved (it is
					// committed): it stays on the Ctx, and is left to the
					// garbage collector rather than the pool, since nothing
					// says when the page is done with it.
					return err
				}
				sessionKey.Set(c, nil)
				sess.release()
				s.pool.Put(sess)
			}
			return err
		}
	}
}

// SessionOf returns the request's session, loading it at the first call: the
// cookie is read, the store asked, the data checked. A missing, corrupt,
// forged or expired cookie gives a new empty session, never an error; the
// error is for a store that could not answer (a 503 problem, its cause
// logged) or for a route without the Sessions middleware (a 500).
//
// After the middleware has returned (in an error page the App renders
// after the handler), SessionOf starts no session and calls no store: it
// returns the session the handler used, closed (its values can be read;
// changes are not saved), or an error when the handler used none.
//
// The *Session belongs to the request: do not keep it after the handler
// returns or use it from another goroutine.
func SessionOf(c *plinth.Ctx) (*Session, error) {
	if sess := sessionKey.Get(c); sess != nil {
		return sess, sess.loadErr
	}
	s := sessionsKey.Get(c)
	if s == nil {
		if sessionsEndedKey.Get(c) != nil {
			return nil, plinth.Error(http.StatusInternalServerError, "").Wrap(errSessionsEnded)
		}
		return nil, plinth.Error(http.StatusInternalServerError, "").Wrap(errNoSessions)
	}
	sess := s.pool.Get().(*Session)
	sess.begin(s, c)
	sessionKey.Set(c, sess)
	sess.load()
	return sess, sess.loadErr
}

type sessionError string

func (e sessionError) Error() string { return string(e) }

const errNoSessions = sessionError("web: SessionOf on a route without the Sessions middleware (install it with Sessions.Attach or Use(sessions.Middleware()))")

const errSessionsEnded = sessionError("web: SessionOf after the Sessions middleware returned (an error page rendered after the handler, which did not use the session): no session is started there, so that no store call runs outside the middleware's deadlines")

// Session is one request's view of its session: typed values (Get, Put),
// Renew and Destroy. It is loaded by SessionOf and saved before the response
// starts; changes made after the response started are not saved (and
// logged).
type Session struct {
	s       *Sessions
	c       *plinth.Ctx
	w       sessionWriter
	loadErr error

	id      string // the stored session's ID ("" for none yet)
	oldID   string // an ID to delete at commit (Renew, Destroy)
	created int64  // Unix seconds
	touched int64
	data    []byte  // the loaded encoding, read by Get until a change decodes it into vals
	vals    []entry // decoded values, once decoded
	decoded bool

	hadCookie bool
	changed   bool // values changed: save
	renewed   bool // new ID (or, in the cookie store, a new cookie): save and set the cookie
	destroyed bool // the session ended: delete, expire the cookie
	committed bool
	failed    bool // the commit failed: the handler's response is replaced by an error

	storeCtx    context.Context // shared by the request's store calls, with a store timeout
	storeCancel context.CancelFunc

	buf []byte // encoding and cookie scratch, reused with the pooled Session
}

func (sess *Session) begin(s *Sessions, c *plinth.Ctx) {
	sess.s, sess.c = s, c
	sess.w = sessionWriter{sess: sess, next: c.Writer()}
	c.SetWriter(&sess.w)
}

func (sess *Session) release() {
	buf := sess.buf[:0]
	if cap(buf) > 16<<10 {
		buf = nil
	}
	clear(sess.vals)
	vals := sess.vals[:0]
	*sess = Session{buf: buf, vals: vals}
}

// load reads the session the request's cookie names, leaving a new empty
// session when there is none usable.
func (sess *Session) load() {
	set := &sess.s.set
	now := set.now().Unix()
	sess.created, sess.touched = now, now
	value, ok := requestCookie(sess.c.RawRequest(), sess.cookieName())
	if !ok {
		return
	}
	sess.hadCookie = true
	var data []byte
	if set.cookie != nil {
		var err error
		sess.buf, data, err = set.cookie.open(sess.buf[:0], set.name, value)
		if err != nil {
			return // forged, damaged or sealed with a retired key: a new session
		}
	} else {
		if !validID(value) {
			return
		}
		var err error
		ctx := sess.loadContext()
		data, err = set.store.Load(ctx, value)
		if err != nil {
			err = sess.retryStore(ctx, sess.c.Context().Done(), err, func(ctx context.Context) error {
				var lerr error
				data, lerr = set.store.Load(ctx, value)
				return lerr
			})
		}
		if err != nil {
			sess.loadErr = plinth.Error(http.StatusServiceUnavailable, "the session store is unavailable").Wrap(err)
			return
		}
		if data == nil {
			return
		}
	}
	created, touched, _, _, err := decodeHeader(data)
	if err != nil || validate(data) != nil {
		return
	}
	if now-created >= int64(set.lifetime/time.Second) || set.idle > 0 && now-touched >= int64(set.idle/time.Second) || created > now+60 {
		if set.cookie == nil {
			sess.oldID = value // expired: delete it from the store at commit
		}
		return
	}
	if set.cookie == nil {
		sess.id = value
	}
	sess.created, sess.touched, sess.data = created, touched, data
}

func (sess *Session) cookieName() string {
	if sess.c.Secure() {
		return sess.s.set.secureName
	}
	return sess.s.set.name
}

// ID returns the session's ID in its store, "" for a session not saved yet
// or kept in the cookie store. It is a secret: do not log or show it.
func (sess *Session) ID() string { return sess.id }

// IsNew reports whether the session was not loaded from the request: no
// cookie, or one that named no usable session.
func (sess *Session) IsNew() bool { return sess.data == nil && !sess.decoded }

// Created returns when the session began.
func (sess *Session) Created() time.Time { return time.Unix(sess.created, 0) }

// decode turns the loaded encoding into vals, for a change.
func (sess *Session) decode() {
	if sess.decoded {
		return
	}
	sess.decoded = true
	if sess.data == nil {
		return
	}
	_, _, n, rest, err := decodeHeader(sess.data)
	if err != nil {
		return
	}
	for range n {
		var key, payload []byte
		var kind byte
		if key, kind, payload, rest, err = nextValue(rest); err != nil {
			return
		}
		v, err := decodeValue(kind, payload)
		if err != nil {
			return
		}
		sess.vals = append(sess.vals, entry{key: string(key), val: v})
	}
}

// lookup returns the value under key.
func (sess *Session) lookup(key string) (any, bool) {
	if sess.decoded {
		for i := range sess.vals {
			if sess.vals[i].key == key {
				return sess.vals[i].val, true
			}
		}
		return nil, false
	}
	kind, payload, ok := sess.raw(key)
	if !ok {
		return nil, false
	}
	v, err := decodeValue(kind, payload)
	return v, err == nil
}

// raw finds the encoded value under key in the loaded data, before any
// change decoded it.
func (sess *Session) raw(key string) (kind byte, payload []byte, ok bool) {
	if sess.data == nil {
		return 0, nil, false
	}
	_, _, n, rest, err := decodeHeader(sess.data)
	if err != nil {
		return 0, nil, false
	}
	for range n {
		var k []byte
		if k, kind, payload, rest, err = nextValue(rest); err != nil {
			return 0, nil, false
		}
		if string(k) == key {
			return kind, payload, true
		}
	}
	return 0, nil, false
}

// Get returns the value the session holds under key as a T, and whether
// there is one of that type. Numbers convert between integer kinds when the
// value fits (a Put int is a Get int64); other types (structs, slices, maps)
// are kept as JSON and decoded into T. Reading a string allocates the
// string and nothing else.
func Get[T any](sess *Session, key string) (T, bool) {
	if !sess.decoded {
		kind, payload, ok := sess.raw(key)
		if !ok {
			var zero T
			return zero, false
		}
		if v, ok, done := decodeDirect[T](kind, payload); done {
			return v, ok
		}
		v, err := decodeValue(kind, payload)
		if err != nil {
			var zero T
			return zero, false
		}
		return convert[T](v)
	}
	v, ok := sess.lookup(key)
	if !ok {
		var zero T
		return zero, false
	}
	return convert[T](v)
}

// Has reports whether the session holds a value under key.
func (sess *Session) Has(key string) bool {
	_, ok := sess.lookup(key)
	return ok
}

// Put sets the value under key. Strings, byte slices, booleans, integers,
// floats and time.Time are encoded directly; any other value is encoded as
// JSON when the session is saved, and a value JSON cannot encode (a
// channel, a function) fails that save with an error naming the key.
func (sess *Session) Put(key string, v any) {
	sess.decode()
	sess.changed = true
	for i := range sess.vals {
		if sess.vals[i].key == key {
			sess.vals[i].val = v
			return
		}
	}
	sess.vals = append(sess.vals, entry{key: key, val: v})
}

// Delete removes the value under key.
func (sess *Session) Delete(key string) {
	if !sess.Has(key) {
		return
	}
	sess.decode()
	for i := range sess.vals {
		if sess.vals[i].key == key {
			sess.vals = append(sess.vals[:i], sess.vals[i+1:]...)
			sess.changed = true
			return
		}
	}
}

// Pop returns the value under key as a T and removes it: a value read once.
func Pop[T any](sess *Session, key string) (T, bool) {
	v, ok := Get[T](sess, key)
	if ok {
		sess.Delete(key)
	}
	return v, ok
}

// Keys returns the keys the session holds, in the order they were put.
func (sess *Session) Keys() []string {
	sess.decode()
	out := make([]string, len(sess.vals))
	for i, e := range sess.vals {
		out[i] = e.key
	}
	return out
}

// Renew gives the session a new ID and keeps its values; the old ID is
// deleted from the store. Call it when the privilege level changes, on
// sign-in above all: an attacker who planted a session ID in the victim's
// browser (session fixation) is left holding an ID that no longer exists.
// With the cookie store it seals a new cookie (and restarts no clock).
func (sess *Session) Renew() {
	sess.decode()
	if sess.id != "" {
		sess.oldID = sess.id
		sess.id = ""
	}
	sess.renewed = true
	sess.changed = true
}

// Destroy ends the session: its values are dropped, its ID deleted from the
// store and its cookie expired, so that the cookie no longer names anything
// (sign-out). A Put after Destroy starts a new session with a new ID.
// With the cookie store a copy of the cookie kept elsewhere stays valid
// until its own expiry: the server holds nothing to revoke (see
// CookieStore).
func (sess *Session) Destroy() {
	sess.decode()
	clear(sess.vals)
	sess.vals = sess.vals[:0]
	if sess.id != "" {
		sess.oldID = sess.id
		sess.id = ""
	}
	sess.destroyed = true
	sess.changed = false
	sess.renewed = false
	sess.created = sess.s.set.now().Unix()
}

// newID returns 32 random bytes in unpadded base64url: 43 characters, 256
// bits that nobody can guess.
func newID() string {
	var raw [32]byte
	_, _ = rand.Read(raw[:])
	return base64.RawURLEncoding.EncodeToString(raw[:])
}

// validID reports whether s has the shape newID gives, so that a cookie that
// could not have come from us never reaches the store.
func validID(s string) bool {
	if len(s) != 43 {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '-' || b == '_') {
			return false
		}
	}
	return true
}

// describeStore names a store for the start-up log line: its String method
// (the stores of this repository say their engine and where they connect,
// without a password), or its type.
func describeStore(st Store) string {
	if d, ok := st.(fmt.Stringer); ok {
		return d.String()
	}
	return fmt.Sprintf("%T", st)
}

// logger returns the sessions' logger.
func (sess *Session) logger() *slog.Logger { return sess.s.set.log }
