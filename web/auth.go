package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
)

// userIDKey is the session value holding the signed-in user's ID.
const userIDKey = "_uid"

// The defaults of AuthConfig.
const (
	// DefaultLoginPath is where RequireUser sends browsers that are not
	// signed in.
	DefaultLoginPath = "/login"
	// DefaultLoginField is the form field Throttle reads the account from.
	DefaultLoginField = "email"
	// DefaultLoginClientRate is the Rate and Burst, per minute, of the
	// zero AuthConfig.LoginClientLimit: the failed sign-ins one client
	// address may make across all accounts (see LoginClientLimit for why).
	DefaultLoginClientRate = 20
	// DefaultLoginClientConcurrency is the zero
	// AuthConfig.LoginClientConcurrency: the sign-in attempts one client
	// address may have in flight at once (see LoginClientConcurrency).
	DefaultLoginClientConcurrency = 8
)

// ErrNoUser is what AuthConfig.LoadUser returns for an ID that names no user
// (any more): the session is then signed out, not failed.
var ErrNoUser = errors.New("web: no such user")

// AuthConfig configures NewAuth. LoadUser is required; every other field's
// zero value is the default.
type AuthConfig[U any] struct {
	// LoadUser loads the user whose ID Login stored in the session. It is
	// called at most once per request, when the user is first asked for
	// (User, RequireUser, {{ user }}). Return ErrNoUser (or an error
	// wrapping it) for a user that no longer exists: the request is then
	// signed out. Another error fails the request.
	LoadUser func(ctx context.Context, id string) (U, error)

	// LoginPath is where RequireUser redirects browsers; "" means
	// DefaultLoginPath ("/login").
	LoginPath string

	// NextParam, when set (say "next"), makes RequireUser add the page a
	// browser asked for to LoginPath as that query parameter
	// (/login?next=%2Faccount), for the sign-in handler to return to after
	// checking it with SafeNext. "" (the default) redirects to LoginPath
	// exactly.
	NextParam string

	// LoginLimit is the token bucket of sign-in attempts that Throttle
	// keeps per client address and account (the LoginField form value,
	// lower-cased): each attempt takes a token before its password is
	// checked, and a successful one gives it back (with a store that can:
	// middleware.Refunder, as MemoryRateLimitStore and redisstore.RateLimitStore are), so
	// only failures cost. The zero Limit means 5 failures, then one more
	// attempt every 12 seconds (Rate 5 Per minute, Burst 5): a person who
	// mistypes is not stopped, and signing in and out all day never is,
	// while a password-guessing script gets 300 guesses an hour per address
	// and account instead of thousands a second, however many it sends at
	// once.
	LoginLimit middleware.Limit

	// LoginClientLimit is the token bucket of sign-in attempts that
	// Throttle keeps per client address across all accounts (an IPv6
	// address by its /64, a subscriber's usual share), taken before
	// LoginLimit's and given back in the same cases: a success, a busy
	// refusal, and an attempt LoginLimit refuses (no password was checked).
	// LoginLimit alone lets one address name many accounts, 5 guesses
	// each, and fill the hashing queue that every sign-in shares
	// (PasswordsConfig.Queue), so that others' sign-ins get 503; an attempt
	// this bucket refuses gets a 429 problem with Retry-After without any
	// password being hashed. The zero Limit means DefaultLoginClientRate:
	// 20 failures, then one more every 3 seconds (Rate 20 Per minute, Burst
	// 20): an office behind one NAT address does not fail 20 sign-ins in a
	// minute (successes cost nothing), while a script trying many accounts
	// from one address gets 1200 guesses an hour across all of them, about
	// half a second of one core's hashing a minute. A negative Rate
	// (plinth.Off) switches it off, for a sign-in form reached only through
	// a proxy that is not in the App's trusted proxies (every client then
	// has the proxy's address: configure the trusted proxies instead, when
	// you can). Other values follow LoginLimit's rules (Name "login-client"
	// when "").
	LoginClientLimit middleware.Limit

	// LoginClientConcurrency bounds the sign-in attempts of one client
	// address (an IPv6 address by its /64) that Throttle lets run at once
	// in this process, whatever their accounts: one past it gets a 429
	// problem with Retry-After: 1 at once, before any bucket is touched or
	// password hashed. An attempt in flight holds a hashing slot or a place
	// in the queue, so one address holds at most this many of them, and
	// others' sign-ins find room however many requests it sends at once.
	// 0 means DefaultLoginClientConcurrency (8): a person signs in one
	// attempt at a time and a whole office rarely has 8 in the same few
	// hundred milliseconds, while the default queue holds 32 per slot. A
	// negative value (plinth.Off) means no bound. The count is per process,
	// as the hashing slots are, whatever LoginLimitStore.
	LoginClientConcurrency int

	// LoginLimitStore keeps Throttle's buckets (LoginLimit's and
	// LoginClientLimit's, apart by their Limit.Name): the catalogue's rate-limit
	// stores (middleware.RateLimitStore). Nil means a middleware.MemoryRateLimitStore of its
	// own. Give a shared store (redisstore.RateLimitStore) when several
	// instances serve the sign-in form, so that failures count together.
	LoginLimitStore middleware.RateLimitStore

	// LoginField is the form field naming the account in sign-in posts;
	// "" means DefaultLoginField ("email").
	LoginField string

	// Clock returns the current time for Throttle's buckets; nil means
	// time.Now. Tests pass a fake one (plinthtest.Clock's Now) to refill a
	// bucket without sleeping.
	Clock func() time.Time
}

// Auth signs users in and out on top of Sessions and gives handlers the
// current user, loaded once per request. Make one with NewAuth and install
// it with Attach (or its Middleware) after the Sessions.
type Auth[U any] struct {
	load      func(context.Context, string) (U, error)
	loginPath string
	nextParam string
	field     string
	throttle  *loginThrottle
	slot      plinth.Key[userSlot[U]]
	ref       authRef
}

// userSlot is the request's user, once loaded.
type userSlot[U any] struct {
	user U
	ok   bool
	err  error
}

// authRef lets UserOf find the request's Auth without its type.
type authRef struct {
	current func(c *plinth.Ctx) any
}

var authKey = plinth.NewKey[authRef]("web.auth")

// signedInKey marks a request whose handler called Login, for Throttle.
var signedInKey = plinth.NewKey[bool]("web.signed-in")

var signedIn = true

// NewAuth returns an Auth configured by cfg. It panics without LoadUser or
// with a bad LoginLimit or LoginClientLimit (the program's mistakes).
func NewAuth[U any](cfg AuthConfig[U]) *Auth[U] {
	if cfg.LoadUser == nil {
		panic("web: AuthConfig.LoadUser is required")
	}
	a := &Auth[U]{load: cfg.LoadUser, loginPath: cfg.LoginPath, nextParam: cfg.NextParam, field: cfg.LoginField,
		slot: plinth.NewKey[userSlot[U]]("web.user")}
	if a.loginPath == "" {
		a.loginPath = DefaultLoginPath
	}
	if a.field == "" {
		a.field = DefaultLoginField
	}
	a.throttle = newLoginThrottle(cfg.LoginLimit, cfg.LoginClientLimit, cfg.LoginClientConcurrency, cfg.LoginLimitStore, a.field, cfg.Clock)
	a.ref.current = func(c *plinth.Ctx) any {
		u, ok, _ := a.User(c)
		if !ok {
			return nil
		}
		return u
	}
	return a
}

// Attach installs the Auth's Middleware on every route of app.
func (a *Auth[U]) Attach(app *plinth.App) { app.Use(a.Middleware()) }

// Middleware makes the Auth reachable from templates ({{ user }}) and
// UserOf. It costs one pointer kept on the Ctx; nothing is loaded until
// asked for. It also adds Retry-After to the 503 of a password check refused
// because every hashing slot was busy (ErrPasswordBusy).
func (a *Auth[U]) Middleware() plinth.Middleware {
	return func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			authKey.Set(c, &a.ref)
			return withPasswordBusy(c, next(c))
		}
	}
}

// Login signs the user with ID id in: the session is renewed (a new ID, the
// old one deleted: session fixation), then the ID is stored. The session's
// other values stay. The CSRF secret is replaced (a new CSRF cookie, and
// the secret kept in the session, which binds it to the signed-in session:
// see CSRF), so that a token taken before signing in is refused after it;
// a current browser's form posts pass on Sec-Fetch-Site and need no token.
// Check the password first (Passwords.Check, or CheckPassword).
func (a *Auth[U]) Login(c *plinth.Ctx, id string) error {
	sess, err := SessionOf(c)
	if err != nil {
		return err
	}
	sess.Renew()
	sess.Put(userIDKey, id)
	rotateCSRF(c, sess)
	a.slot.Set(c, nil)
	signedInKey.Set(c, &signedIn)
	return nil
}

// Logout signs the request's user out by destroying the session: its ID is
// deleted from the store and its cookie expired, so the old cookie signs
// nobody in any more. The CSRF secret is replaced too: the signed-in
// session's tokens end with it.
func (a *Auth[U]) Logout(c *plinth.Ctx) error {
	sess, err := SessionOf(c)
	if err != nil {
		return err
	}
	sess.Destroy()
	rotateCSRF(c, nil)
	a.slot.Set(c, &userSlot[U]{})
	return nil
}

// UserID returns the signed-in user's ID from the session, without loading
// the user.
func (a *Auth[U]) UserID(c *plinth.Ctx) (string, bool, error) {
	sess, err := SessionOf(c)
	if err != nil {
		return "", false, err
	}
	id, ok := Get[string](sess, userIDKey)
	return id, ok && id != "", nil
}

// User returns the signed-in user, loading it with LoadUser at the first
// call of the request; ok is false when nobody is signed in.
func (a *Auth[U]) User(c *plinth.Ctx) (user U, ok bool, err error) {
	if s := a.slot.Get(c); s != nil {
		return s.user, s.ok, s.err
	}
	s := &userSlot[U]{}
	id, signedIn, err := a.UserID(c)
	switch {
	case err != nil:
		s.err = err
	case signedIn:
		u, lerr := a.load(c.Context(), id)
		switch {
		case errors.Is(lerr, ErrNoUser):
			if sess, _ := SessionOf(c); sess != nil {
				sess.Delete(userIDKey)
			}
		case lerr != nil:
			s.err = lerr
		default:
			s.user, s.ok = u, true
		}
	}
	a.slot.Set(c, s)
	return s.user, s.ok, s.err
}

// RequireUser lets only signed-in users through. Others get a 303 redirect
// to LoginPath (with the page asked for in NextParam, when set) when the
// request prefers HTML (a browser), and a 401 problem otherwise (an API
// client).
func (a *Auth[U]) RequireUser() plinth.Middleware {
	return func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			_, ok, err := a.User(c)
			if err != nil {
				return err
			}
			if ok {
				return next(c)
			}
			r := c.RawRequest()
			if PrefersHTML(r) {
				target := a.loginPath
				if a.nextParam != "" && r.Method == http.MethodGet {
					target += "?" + a.nextParam + "=" + url.QueryEscape(r.URL.RequestURI())
				}
				return c.Redirect(http.StatusSeeOther, target)
			}
			return plinth.Unauthorized("sign in first")
		}
	}
}

// Throttle slows password guessing: install it on the route that receives
// the sign-in form. Before the handler runs, every POST passes, cheapest
// first: the bound on its client address's attempts in flight
// (AuthConfig.LoginClientConcurrency, counted in this process), then takes
// a token from its client address's bucket across all accounts
// (AuthConfig.LoginClientLimit), then one from the bucket of its client
// address and account (AuthConfig.LoginLimit), both in the catalogue's
// rate-limit RateLimitStore. So of any number of attempts sent at once, at
// most the buckets' tokens reach the password check, and one address
// naming many accounts holds at most a few of the hashing slots every
// sign-in shares; the others, and every attempt while a bucket is empty,
// get a 429 problem with Retry-After without any password being hashed. A
// request whose handler calls Login gives its tokens back (with a
// middleware.Refunder store), as does one refused because every hashing
// slot was busy (ErrPasswordBusy, whose 503 gets Retry-After): successful
// sign-ins cost nothing. A store error lets the attempt through uncounted,
// with a warning in the log; the bound on attempts in flight holds all the
// same.
func (a *Auth[U]) Throttle() plinth.Middleware { return a.throttle.middleware }

// UserOf returns the signed-in user of the Auth installed on the
// request (its Middleware or Attach), or nil when nobody is signed in or no
// Auth is installed. {{ user }} in templates calls it; handlers use the
// typed Auth.User.
func UserOf(c *plinth.Ctx) any {
	if ref := authKey.Get(c); ref != nil {
		return ref.current(c)
	}
	return nil
}

// SafeNext returns next when it is a path on this site ("/account?tab=1"),
// and fallback otherwise (an absolute URL, "//evil.example", a backslash
// trick): the check for the parameter RequireUser adds (NextParam), before
// redirecting there after sign-in (open redirects).
func SafeNext(next, fallback string) string {
	if !isSitePath(next) {
		return fallback
	}
	return next
}
