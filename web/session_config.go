package web

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/plinth-go/plinth/internal/envconf"
	"github.com/plinth-go/plinth/internal/redact"
)

// The defaults of SessionsConfig.
const (
	// DefaultCookieName is the session cookie's name; on secure requests it
	// carries the __Host- prefix (see SessionsConfig.CookieName).
	DefaultCookieName = "session"

	// DefaultIdleTimeout ends a session nobody used for two hours, the
	// lifetime Laravel gives its sessions: long enough for a working
	// afternoon with a meeting in it, short enough that a forgotten tab on
	// a shared computer does not stay signed in.
	DefaultIdleTimeout = 2 * time.Hour

	// DefaultLifetime ends every session a day after it began, however
	// busy, as scs does: a stolen session ID is worth a day at most.
	DefaultLifetime = 24 * time.Hour

	// DefaultStoreTimeout bounds each call to a session store: a Redis or
	// PostgreSQL store answers within a few milliseconds (docs/web.md,
	// "Costs and outages"), so five seconds is a store that is not
	// answering, and the request fails with 503 instead of waiting on it
	// (a save runs even after the handler's own deadline: this is what
	// bounds it).
	DefaultStoreTimeout = 5 * time.Second
)

// SessionsConfig configures NewSessions. Its zero value is a working
// configuration: sessions in a MemoryStore (or the store PLINTH_SESSION_STORE
// names), a cookie named "session" (__Host-session on HTTPS), HttpOnly,
// SameSite=Lax, two hours idle and a day at most.
type SessionsConfig struct {
	// Store keeps the sessions. Nil means the store StoreURL names.
	Store Store

	// StoreURL names the store when Store is nil: "memory" (a MemoryStore
	// with DefaultMemoryStoreMaxSessions), "cookie" (a CookieStore with
	// Keys), or a URL whose scheme has an entry in Openers, such as
	// "redis://127.0.0.1:6379/0" or "postgres://user@host/db". "" means
	// "memory". PLINTH_SESSION_STORE overrides it (and Store), so that one
	// build runs with a memory store on a laptop and with Redis in
	// production.
	StoreURL string

	// Openers open the stores of URL schemes for StoreURL and
	// PLINTH_SESSION_STORE, such as {"redis": redisstore.OpenSessionStore, "postgres":
	// pgstore.Open}. The stores with third-party clients are modules of
	// their own; an application lists those it links.
	Openers map[string]OpenStore

	// Keys seal the cookie store's cookies when StoreURL (or
	// PLINTH_SESSION_STORE) is "cookie": 32 bytes each; the first seals and
	// every key opens, so that a new key is put first and the old one
	// removed once the sessions it sealed have expired.
	// PLINTH_SESSION_KEYS (comma-separated, base64) overrides it.
	Keys [][]byte

	// CookieName is the session cookie's name; "" means DefaultCookieName.
	// On a secure request (Ctx.Secure: TLS, or a trusted proxy saying so)
	// the name gets the __Host- prefix, which the browser accepts only from
	// HTTPS, with Path=/ and no Domain, so that a sibling subdomain or a
	// plain-HTTP page cannot plant or overwrite the cookie (__Secure- when
	// Domain is set, which __Host- forbids).
	CookieName string

	// Domain is the cookie's Domain attribute; "" (the default) means the
	// host that set it and no other, which is what a session should be.
	Domain string

	// SameSite is the cookie's SameSite attribute; 0 means Lax: the cookie
	// goes with top-level navigations from other sites (a link to your page
	// arrives signed in) but not with their cross-site form posts or
	// requests.
	SameSite http.SameSite

	// IdleTimeout ends a session not used for this long; 0 means
	// DefaultIdleTimeout (2h), a negative value no idle limit.
	// PLINTH_SESSION_IDLE_TIMEOUT overrides it. A request that only reads
	// its session saves it again (to move the idle deadline) at most once
	// per IdleTimeout/20 (six minutes by default), not at every request.
	IdleTimeout time.Duration

	// Lifetime ends a session this long after it began, however busy; 0
	// means DefaultLifetime (24h). PLINTH_SESSION_LIFETIME overrides it.
	Lifetime time.Duration

	// StoreTimeout bounds the time a request waits on the session store,
	// its calls together (a load, then a save or a delete and a create),
	// from the first, whatever the request's own deadline: a save runs
	// after the handler, even past its timeout, and must not hang on a
	// store that stopped answering; past it the request answers 503.
	// Within it, a call that fails is asked again, 20 ms later, then at
	// doubling intervals up to 250 ms, so that a store restarting for a
	// second or two (a Redis with its append-only file, a PostgreSQL in
	// fast mode) costs the requests that meet it that much latency, not
	// an error nor a signed-out user. 0 means DefaultStoreTimeout (5s), a
	// negative value no bound and no retry (a load then ends with the
	// request, a save never).
	// PLINTH_SESSION_STORE_TIMEOUT overrides it ("0" switches it off). It
	// does not apply to the memory and cookie stores, which never wait on
	// I/O. Cost, with a Redis or PostgreSQL store: one context with a
	// timer per request that uses its session, 6 allocations
	// (bench/budgets.json, Session/store=redis).
	StoreTimeout time.Duration

	// BrowserSession makes the cookie last until the browser closes (no
	// Max-Age). By default it carries Max-Age up to the session's end.
	BrowserSession bool

	// Logger receives store failures and commits that cannot happen (a
	// session changed after the response started). Nil means
	// slog.Default().
	Logger *slog.Logger

	// Clock returns the current time; nil means time.Now. Tests inject a
	// fake.
	Clock func() time.Time
}

// sessionSettings is a SessionsConfig resolved: defaults filled in,
// environment applied, store opened.
type sessionSettings struct {
	store      Store
	cookie     *CookieStore // set when the sessions live in the cookie
	name       string
	secureName string
	domain     string
	sameSite   http.SameSite
	idle       time.Duration // 0: none
	lifetime   time.Duration
	touchEvery time.Duration
	storeWait  time.Duration // the bound of a store call; 0: none
	browser    bool
	log        *slog.Logger
	now        func() time.Time
	openedURL  string
}

// resolve fills in cfg's defaults and applies the PLINTH_SESSION_*
// variables read through lookup, reporting every bad value in one error.
func (cfg SessionsConfig) resolve(lookup func(string) (string, bool)) (sessionSettings, error) {
	e := envconf.New(lookup)
	s := sessionSettings{
		name: cfg.CookieName, domain: cfg.Domain, sameSite: cfg.SameSite,
		idle: cfg.IdleTimeout, lifetime: cfg.Lifetime, browser: cfg.BrowserSession,
		log: cfg.Logger, now: cfg.Clock,
	}
	if s.name == "" {
		s.name = DefaultCookieName
	}
	if !validCookieName(s.name) {
		e.Failf("SessionsConfig.CookieName %q is not a valid cookie name", s.name)
	}
	if s.domain == "" {
		s.secureName = "__Host-" + s.name
	} else {
		s.secureName = "__Secure-" + s.name
	}
	if s.sameSite == 0 || s.sameSite == http.SameSiteDefaultMode {
		s.sameSite = http.SameSiteLaxMode
	}
	s.storeWait = cfg.StoreTimeout
	keys, url := cfg.Keys, cfg.StoreURL
	fromEnv := readSessionEnv(e, &s.idle, &s.lifetime, &s.storeWait, &keys, &url)
	switch {
	case s.storeWait == 0:
		s.storeWait = DefaultStoreTimeout
	case s.storeWait < 0:
		s.storeWait = 0
	}
	switch {
	case s.idle == 0:
		s.idle = DefaultIdleTimeout
	case s.idle < 0:
		s.idle = 0 // Off: no idle limit
	}
	switch {
	case s.lifetime == 0:
		s.lifetime = DefaultLifetime
	case s.lifetime < 0:
		e.Failf("SessionsConfig.Lifetime %v: a session cannot last for ever (0 means the default, %v)", s.lifetime, DefaultLifetime)
	}
	s.touchEvery = s.lifetime / 20
	if s.idle > 0 {
		s.touchEvery = s.idle / 20
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if err := e.Err("web"); err != nil {
		return s, err
	}
	if cfg.Store != nil && !fromEnv {
		s.store = cfg.Store
	} else {
		st, err := openStore(url, cfg.Openers, keys, fromEnv)
		if err != nil {
			return s, err
		}
		s.store, s.openedURL = st, url
	}
	if cs, ok := s.store.(*CookieStore); ok {
		s.cookie = cs
	}
	if _, ok := s.store.(interface{ local() }); ok || s.cookie != nil {
		s.storeWait = 0 // never waits on I/O: no timer per call
	}
	return s, nil
}

// readSessionEnv overlays the PLINTH_SESSION_* variables on the settings
// they override, and reports whether PLINTH_SESSION_STORE was set. "0"
// switches the idle limit and the store timeout off; the lifetime cannot be
// off.
func readSessionEnv(e *envconf.Reader, idle, lifetime, storeWait *time.Duration, keys *[][]byte, url *string) (storeFromEnv bool) {
	e.Duration("PLINTH_SESSION_IDLE_TIMEOUT", idle, envconf.ZeroOff)
	e.Duration("PLINTH_SESSION_LIFETIME", lifetime, envconf.ZeroRefused)
	e.Duration("PLINTH_SESSION_STORE_TIMEOUT", storeWait, envconf.ZeroOff)
	var list []string
	e.List("PLINTH_SESSION_KEYS", &list)
	if list != nil {
		*keys = nil
		for i, part := range list {
			k, err := decodeKey(part)
			if err != nil {
				e.Failf("PLINTH_SESSION_KEYS: key %d: %v", i+1, err)
				continue
			}
			*keys = append(*keys, k)
		}
	}
	if v, ok := e.Lookup("PLINTH_SESSION_STORE"); ok {
		*url, storeFromEnv = v, true
	}
	return storeFromEnv
}

// sessionEnvNames returns the variables NewSessions reads, for Attach to
// declare to the App (App.DeclareEnv).
func sessionEnvNames() []string {
	return envconf.NamesOf(func(e *envconf.Reader) {
		var d time.Duration
		var keys [][]byte
		var url string
		readSessionEnv(e, &d, &d, &d, &keys, &url)
	})
}

// openStore opens the store a URL names.
func openStore(url string, openers map[string]OpenStore, keys [][]byte, fromEnv bool) (Store, error) {
	where := "SessionsConfig.StoreURL"
	if fromEnv {
		where = "PLINTH_SESSION_STORE"
	}
	switch url {
	case "", "memory":
		return NewMemoryStore(MemoryStoreConfig{}), nil
	case "cookie":
		if len(keys) == 0 {
			return nil, fmt.Errorf("web: %s=cookie needs keys: set PLINTH_SESSION_KEYS (comma-separated base64 of 32 random bytes each, e.g. from `openssl rand -base64 32`) or SessionsConfig.Keys", where)
		}
		for i, k := range keys {
			if len(k) != CookieKeySize {
				return nil, fmt.Errorf("web: cookie store key %d is %d bytes, want %d", i+1, len(k), CookieKeySize)
			}
		}
		return NewCookieStore(CookieStoreConfig{Keys: keys})
	}
	scheme, _, ok := strings.Cut(url, "://")
	if !ok {
		return nil, fmt.Errorf("web: %s=%q: want memory, cookie or a URL such as redis://host:6379/0 or postgres://user@host/db", where, redactURL(url))
	}
	open := openers[strings.ToLower(scheme)]
	if open == nil {
		return nil, fmt.Errorf("web: %s=%q: no store opener for %q URLs; add it to SessionsConfig.Openers (redis: github.com/plinth-go/plinth/redisstore.OpenSessionStore, postgres: github.com/plinth-go/plinth/data/pgstore.Open)", where, redactURL(url), scheme)
	}
	st, err := open(context.Background(), url)
	if err != nil {
		return nil, fmt.Errorf("web: %s=%q: %w", where, redactURL(url), redact.Error(err, url))
	}
	return st, nil
}

// redactURL hides the passwords of a store URL for error messages.
func redactURL(u string) string { return redact.DSN(u) }

// decodeKey reads a base64 key (standard or URL alphabet, padded or not).
func decodeKey(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil {
			if len(k) != CookieKeySize {
				return nil, fmt.Errorf("%d bytes, want %d", len(k), CookieKeySize)
			}
			return k, nil
		}
	}
	return nil, errors.New("not base64")
}

func validCookieName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b <= ' ' || b >= 0x7f || strings.IndexByte("()<>@,;:\\\"/[]?={}", b) >= 0 {
			return false
		}
	}
	return true
}

func envLookup(name string) (string, bool) { return os.LookupEnv(name) }
