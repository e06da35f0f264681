package web

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"hash"
	"html/template"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/plinth-go/plinth"
)

// The defaults of CSRFConfig.
const (
	// DefaultCSRFField is the form field that carries the token.
	DefaultCSRFField = "csrf_token"
	// DefaultCSRFHeader is the request header that carries the token, for
	// scripts.
	DefaultCSRFHeader = "X-CSRF-Token"
)

// The names of the cookie holding the CSRF secret: CSRFSecureCookie over
// HTTPS (Ctx.Secure), whose __Host- prefix makes browsers refuse it from a
// sibling subdomain or over plain HTTP (cookie tossing), and CSRFCookie
// otherwise.
const (
	CSRFCookie       = "csrf"
	CSRFSecureCookie = "__Host-csrf"
)

// CSRFKeySize is the size of a key of CSRFConfig.Keys: 32 bytes.
const CSRFKeySize = 32

// csrfKey is the session value holding the secret of a signed-in session,
// put there by Auth.Login.
const csrfKey = "_csrf"

const csrfSecretSize = 32

// csrfCookieLen is the length of the cookie's value: the secret and its
// HMAC-SHA256 tag, in unpadded base64url.
var csrfCookieLen = base64.RawURLEncoding.EncodedLen(csrfSecretSize + sha256.Size)

// CSRFConfig configures CSRF. Its zero value is the default protection.
type CSRFConfig struct {
	// TrustedOrigins are origins ("https://admin.example.com": scheme, host
	// and port, nothing else) allowed to send unsafe requests from another
	// origin. Default none. A bad origin makes CSRF panic: check origins
	// read from data (the environment, a file) with Validate first.
	TrustedOrigins []string

	// Field is the form field holding the token; "" means
	// DefaultCSRFField ("csrf_token"). {{ csrfField }} (CSRFField) writes
	// the field under this name.
	Field string

	// Header is the header holding the token; "" means DefaultCSRFHeader
	// ("X-CSRF-Token").
	Header string

	// Keys authenticate the CSRF cookie (HMAC-SHA256), CSRFKeySize (32)
	// random bytes each: the first signs, every key verifies, so that a key
	// can be rotated (put the new one first, drop the old one a day later).
	// PLINTH_CSRF_KEYS (comma-separated base64, as PLINTH_SESSION_KEYS)
	// overrides it. Default: one random key made by CSRF, which is enough
	// for one process; several instances behind one address need the same
	// keys, or a cookie one instance issued fails the token step on another
	// (only requests without Sec-Fetch-Site and Origin take that step: see
	// CSRF), and a restart invalidates the cookies issued before it (the
	// next page with a form issues a new one). A key of the wrong size
	// makes CSRF panic: check keys read from data with Validate first.
	Keys [][]byte
}

// csrfGuard is one CSRF middleware's settings, reachable from CSRFToken
// and Auth.Login through the Ctx.
type csrfGuard struct {
	cop        *http.CrossOriginProtection
	field      string // form field name
	fieldHTML  string // the same, escaped for an attribute
	header     string // canonical header name
	keys       [][]byte
	macs       []sync.Pool // per key, of *csrfMAC (hmac.New allocates)
	cookieTail string      // "; Path=/; HttpOnly; SameSite=Lax"
}

var (
	csrfGuardKey  = plinth.NewKey[csrfGuard]("web.csrf")
	csrfSecretKey = plinth.NewKey[[csrfSecretSize]byte]("web.csrf-secret") // the request's secret, once known
)

// CSRF protects unsafe requests (every method but GET, HEAD and OPTIONS)
// from cross-site request forgery, in two steps:
//
//  1. Browsers say where a request comes from, and that decides when they
//     do, as Go 1.25's http.CrossOriginProtection (which does this step)
//     decides: Sec-Fetch-Site "same-origin" or "none" passes, any other
//     value is refused unless Origin is a trusted origin; without
//     Sec-Fetch-Site (browsers before 2023), an Origin whose host is the
//     request's Host passes and another is refused unless trusted.
//  2. A request with neither header comes from something that is not a
//     current browser. If it carries a cookie (the session's, or any
//     other: what a forgery would abuse) it must carry a token from
//     CSRFToken, in the form field or the header; if it carries no cookie
//     there is nothing to forge and it passes, so that API clients are not
//     asked for tokens. This step does not depend on the Sessions
//     middleware, so it holds whichever of the two is installed first.
//
// The tokens mask a 32-byte secret kept in a cookie of its own
// (CSRFSecureCookie over HTTPS, else CSRFCookie; HttpOnly, SameSite=Lax,
// Path=/), authenticated with an HMAC under CSRFConfig.Keys: an anonymous
// visitor's form costs no session and nothing stored on the server. After
// Auth.Login the secret is a new one, kept in the session too, and the
// token must match the session's when the Sessions run before CSRF (as
// Attach then Use installs them): a cookie planted in the browser by
// another site cannot stand in for it.
//
// A refused request gets a 403 problem (an HTML page for browsers when the
// App renders HTML error pages, see ErrorPages) and the handler does not
// run. The check costs nothing on safe methods and two header lookups on
// same-origin browser requests; the token step parses the form and checks
// the cookie's HMAC. CSRF panics on a bad TrustedOrigins entry or key (in
// the config or PLINTH_CSRF_KEYS), with the error CSRFConfig.Validate
// returns: a program whose origins or keys come from data calls Validate
// first and reports its error.
func CSRF(cfg CSRFConfig) plinth.Middleware {
	g, err := newCSRFGuard(cfg, os.LookupEnv)
	if err != nil {
		panic(err.Error())
	}
	return func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			csrfGuardKey.Set(c, g)
			r := c.RawRequest()
			switch r.Method {
			case http.MethodGet, http.MethodHead, http.MethodOptions:
				return next(c)
			}
			if r.Header.Get("Sec-Fetch-Site") != "" || r.Header.Get("Origin") != "" {
				if err := g.cop.Check(r); err != nil {
					return plinth.Forbidden("cross-origin request refused")
				}
				return next(c)
			}
			if !hasCookie(r) {
				return next(c) // no credential to forge
			}
			var token string
			if v := r.Header[g.header]; len(v) > 0 {
				token = v[0]
			}
			if token == "" {
				token = c.Request().PostFormValue(g.field)
			}
			ok, err := g.valid(c, token)
			if err != nil {
				return err
			}
			if !ok {
				return plinth.Forbidden("missing or invalid CSRF token")
			}
			return next(c)
		}
	}
}

// Validate reports what CSRF would panic on: a bad TrustedOrigins entry, a
// key of the wrong size, or a bad PLINTH_CSRF_KEYS (read as CSRF reads it),
// each error naming the field or the variable. Call it first when origins or
// keys come from data (the environment, a file, a secret store), as for
// middleware.CORSConfig.
func (cfg CSRFConfig) Validate() error {
	_, err := newCSRFGuard(cfg, os.LookupEnv)
	return err
}

func newCSRFGuard(cfg CSRFConfig, lookup func(string) (string, bool)) (*csrfGuard, error) {
	g := &csrfGuard{cop: http.NewCrossOriginProtection(), field: cfg.Field, header: cfg.Header,
		cookieTail: "; Path=/; HttpOnly; SameSite=Lax"}
	for i, o := range cfg.TrustedOrigins {
		if err := g.cop.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("web: CSRFConfig.TrustedOrigins[%d]: %w", i, err)
		}
	}
	if g.field == "" {
		g.field = DefaultCSRFField
	}
	g.fieldHTML = template.HTMLEscapeString(g.field)
	if g.header == "" {
		g.header = DefaultCSRFHeader
	}
	g.header = http.CanonicalHeaderKey(g.header) // once, not per request
	keys, where := cfg.Keys, "CSRFConfig.Keys"
	if v, ok := lookup("PLINTH_CSRF_KEYS"); ok && v != "" {
		keys, where = nil, "PLINTH_CSRF_KEYS"
		for i, part := range strings.Split(v, ",") {
			k, err := decodeKey(strings.TrimSpace(part))
			if err != nil {
				return nil, fmt.Errorf("web: PLINTH_CSRF_KEYS: key %d: %w", i+1, err)
			}
			keys = append(keys, k)
		}
	}
	for i, k := range keys {
		if len(k) != CSRFKeySize {
			return nil, fmt.Errorf("web: %s[%d]: %d bytes, want %d", where, i, len(k), CSRFKeySize)
		}
	}
	if len(keys) == 0 {
		k := make([]byte, CSRFKeySize)
		_, _ = rand.Read(k)
		keys = [][]byte{k}
	}
	g.keys = keys
	g.macs = make([]sync.Pool, len(keys))
	for i := range keys {
		k := keys[i]
		g.macs[i].New = func() any { return &csrfMAC{h: hmac.New(sha256.New, k)} }
	}
	return g, nil
}

// csrfMAC is a pooled HMAC with its scratch, so that checking a cookie
// allocates nothing.
type csrfMAC struct {
	h   hash.Hash
	in  [64]byte
	sum [sha256.Size]byte
}

// tag returns the HMAC under key i of the cookie name and secret.
func (g *csrfGuard) tag(i int, name string, secret *[csrfSecretSize]byte) [sha256.Size]byte {
	m := g.macs[i].Get().(*csrfMAC)
	m.h.Reset()
	n := copy(m.in[:], name) // at most len(CSRFSecureCookie)
	m.in[n] = 0
	n += 1 + copy(m.in[n+1:], secret[:])
	_, _ = m.h.Write(m.in[:n])
	var out [sha256.Size]byte
	copy(out[:], m.h.Sum(m.sum[:0]))
	g.macs[i].Put(m)
	return out
}

func csrfCookieName(c *plinth.Ctx) string {
	if c.Secure() {
		return CSRFSecureCookie
	}
	return CSRFCookie
}

// cookieSecret returns the secret of the request's CSRF cookie, when it has
// one whose HMAC verifies under one of the keys.
func (g *csrfGuard) cookieSecret(c *plinth.Ctx) (secret [csrfSecretSize]byte, ok bool) {
	name := csrfCookieName(c)
	v, found := requestCookie(c.RawRequest(), name)
	if !found || len(v) != csrfCookieLen {
		return secret, false
	}
	var raw [csrfSecretSize + sha256.Size]byte
	if n, err := decodeBase64URL(raw[:], v); err != nil || n != len(raw) {
		return secret, false
	}
	copy(secret[:], raw[:csrfSecretSize])
	for i := range g.keys {
		if t := g.tag(i, name, &secret); hmac.Equal(t[:], raw[csrfSecretSize:]) {
			return secret, true
		}
	}
	return [csrfSecretSize]byte{}, false
}

// setCookie sets the CSRF cookie holding secret on the response.
func (g *csrfGuard) setCookie(c *plinth.Ctx, secret *[csrfSecretSize]byte) {
	name := csrfCookieName(c)
	var raw [csrfSecretSize + sha256.Size]byte
	copy(raw[:], secret[:])
	t := g.tag(0, name, secret)
	copy(raw[csrfSecretSize:], t[:])
	v := name + "=" + base64.RawURLEncoding.EncodeToString(raw[:]) + g.cookieTail
	if name == CSRFSecureCookie {
		v += "; Secure"
	}
	h := c.Header()
	h["Set-Cookie"] = append(h["Set-Cookie"], v)
}

// sessionCSRFSecret returns the secret Auth.Login kept in the request's
// session, when the Sessions middleware ran before this call and the
// request carries a session cookie (a request without one has no session
// worth loading).
func sessionCSRFSecret(c *plinth.Ctx) (secret [csrfSecretSize]byte, ok bool, err error) {
	if sessionKey.Get(c) == nil && !hasSessionCookie(c) {
		return secret, false, nil
	}
	sess, err := SessionOf(c)
	if err != nil {
		return secret, false, err
	}
	b, ok := Get[[]byte](sess, csrfKey)
	if !ok || len(b) != csrfSecretSize {
		return secret, false, nil
	}
	copy(secret[:], b)
	return secret, true, nil
}

// hasCookie reports whether the request carries a cookie, any cookie.
func hasCookie(r *http.Request) bool {
	for _, v := range r.Header["Cookie"] {
		if strings.TrimSpace(v) != "" {
			return true
		}
	}
	return false
}

// hasSessionCookie reports whether the request carries a session cookie of
// the installed Sessions, under either name.
func hasSessionCookie(c *plinth.Ctx) bool {
	s := sessionsKey.Get(c)
	if s == nil {
		return false
	}
	r := c.RawRequest()
	if _, ok := requestCookie(r, s.set.name); ok {
		return true
	}
	_, ok := requestCookie(r, s.set.secureName)
	return ok
}

// private marks the response as one visitor's: it carries a token of their
// secret (and perhaps sets their cookie), which a shared cache must not
// give to another visitor.
func private(c *plinth.Ctx) {
	h := c.Header()
	varyCookie.Add(h)
	if _, ok := h["Cache-Control"]; !ok {
		h["Cache-Control"] = noStore
	}
}

type csrfError string

func (e csrfError) Error() string { return string(e) }

const (
	errNoCSRF      = csrfError("web: CSRFToken on a route without the CSRF middleware (install it with app.Use(web.CSRF(web.CSRFConfig{})))")
	errCSRFStarted = csrfError("web: CSRFToken needs to set the CSRF cookie after the response started: render the token before writing")
)

// csrfSecret returns the request's secret: the one Auth.Login kept in the
// session, else the CSRF cookie's, else a new one, setting the cookie when
// it does not hold the secret returned.
func csrfSecret(c *plinth.Ctx) (*[csrfSecretSize]byte, error) {
	if s := csrfSecretKey.Get(c); s != nil {
		return s, nil
	}
	g := csrfGuardKey.Get(c)
	if g == nil {
		return nil, plinth.Error(http.StatusInternalServerError, "").Wrap(errNoCSRF)
	}
	s := new([csrfSecretSize]byte)
	fromCookie, cookieOK := g.cookieSecret(c)
	// A session that cannot be had (its store down) does not fail the page:
	// the cookie's secret serves, and the next page with the session back
	// issues the session's again.
	fromSession, sessionOK, _ := sessionCSRFSecret(c)
	switch {
	case sessionOK:
		*s = fromSession
	case cookieOK:
		*s = fromCookie
	default:
		_, _ = rand.Read(s[:])
	}
	if !cookieOK || fromCookie != *s {
		if c.Written() {
			return nil, plinth.Error(http.StatusInternalServerError, "").Wrap(errCSRFStarted)
		}
		g.setCookie(c, s)
	}
	private(c)
	csrfSecretKey.Set(c, s)
	return s, nil
}

// rotateCSRF gives the request a new CSRF secret, for Auth.Login and
// Logout: tokens taken before are refused afterwards. The secret goes in
// the cookie (expired instead when the route has no CSRF middleware, whose
// keys sign it: the next page with a form issues it) and, when sess is not
// nil, in the session, which binds it to the signed-in session.
func rotateCSRF(c *plinth.Ctx, sess *Session) {
	s := new([csrfSecretSize]byte)
	_, _ = rand.Read(s[:])
	if sess != nil {
		sess.Put(csrfKey, bytes.Clone(s[:]))
	}
	csrfSecretKey.Set(c, s)
	if c.Written() {
		return // too late for a cookie; the session's secret is issued at the next form
	}
	if g := csrfGuardKey.Get(c); g != nil {
		g.setCookie(c, s)
	} else {
		name := csrfCookieName(c)
		v := name + "=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax"
		if name == CSRFSecureCookie {
			v += "; Secure"
		}
		h := c.Header()
		h["Set-Cookie"] = append(h["Set-Cookie"], v)
	}
	private(c)
}

// CSRFToken returns a token for the request, for a form field (CSRFField
// writes one) or the X-CSRF-Token header of a script's request. It needs
// the CSRF middleware on the route (a 500 error otherwise). The visitor
// has one 32-byte secret, kept in the CSRF cookie (set by the first call
// that finds none) and, once signed in, in the session (Auth.Login makes a
// new one); every token is that secret masked with fresh random bytes, so
// that no two responses carry the same bytes (which defeats BREACH-style
// compression attacks on HTTPS). A token is valid until the secret
// changes: at sign-in and sign-out, or when the cookie is lost. The
// response gets Vary: Cookie and, unless the handler set its own,
// Cache-Control: no-store: the token is this visitor's.
func CSRFToken(c *plinth.Ctx) (string, error) {
	secret, err := csrfSecret(c)
	if err != nil {
		return "", err
	}
	var tok [2 * csrfSecretSize]byte
	_, _ = rand.Read(tok[:csrfSecretSize])
	for i := range csrfSecretSize {
		tok[csrfSecretSize+i] = tok[i] ^ secret[i]
	}
	return base64.RawURLEncoding.EncodeToString(tok[:]), nil
}

// CSRFField returns the hidden form field carrying CSRFToken, named
// CSRFConfig.Field, for {{ csrfField }} in templates.
func CSRFField(c *plinth.Ctx) (template.HTML, error) {
	tok, err := CSRFToken(c)
	if err != nil {
		return "", err
	}
	// The token is base64url: nothing in it needs escaping.
	return template.HTML(`<input type="hidden" name="` + csrfGuardKey.Get(c).fieldHTML + `" value="` + tok + `">`), nil
}

// valid reports whether token unmasks to the request's secret: the
// session's when Auth.Login put one there (and the Sessions ran first),
// else the CSRF cookie's, which must carry a valid HMAC.
func (g *csrfGuard) valid(c *plinth.Ctx, token string) (bool, error) {
	if len(token) != base64.RawURLEncoding.EncodedLen(2*csrfSecretSize) {
		return false, nil
	}
	var tok [2 * csrfSecretSize]byte
	if n, err := decodeBase64URL(tok[:], token); err != nil || n != len(tok) {
		return false, nil
	}
	secret, ok, err := sessionCSRFSecret(c)
	if err != nil {
		return false, err
	}
	if !ok {
		if secret, ok = g.cookieSecret(c); !ok {
			return false, nil
		}
	}
	for i := range csrfSecretSize {
		tok[csrfSecretSize+i] ^= tok[i]
	}
	return subtle.ConstantTimeCompare(tok[csrfSecretSize:], secret[:]) == 1, nil
}
