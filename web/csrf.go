package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"html/template"
	"net/http"

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

// csrfKey is the session value holding the secret the tokens mask.
const csrfKey = "_csrf"

const csrfSecretSize = 32

// CSRFConfig configures CSRF. Its zero value is the default protection.
type CSRFConfig struct {
	// TrustedOrigins are origins ("https://admin.example.com": scheme, host
	// and port, nothing else) allowed to send unsafe requests from another
	// origin. Default none. A bad origin makes CSRF panic.
	TrustedOrigins []string

	// Field is the form field holding the token; "" means
	// DefaultCSRFField ("csrf_token"), the name {{ csrfField }} writes.
	Field string

	// Header is the header holding the token; "" means DefaultCSRFHeader
	// ("X-CSRF-Token").
	Header string
}

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
//     current browser. If it carries the session cookie (the credential a
//     forgery would abuse) it must carry a token from CSRFToken, in the form
//     field or the header; if it carries no session cookie there is nothing
//     to forge and it passes, so that API clients are not asked for tokens.
//
// A refused request gets a 403 problem (an HTML page for browsers when the
// App renders HTML error pages, see ErrorPages) and the handler does not
// run. The check costs nothing on safe methods and two header lookups on
// same-origin browser requests; the token step parses the form. The
// routes it protects need the Sessions middleware for the token step.
func CSRF(cfg CSRFConfig) plinth.Middleware {
	cop := http.NewCrossOriginProtection()
	for _, o := range cfg.TrustedOrigins {
		if err := cop.AddTrustedOrigin(o); err != nil {
			panic("web: CSRFConfig.TrustedOrigins: " + err.Error())
		}
	}
	field, header := cfg.Field, cfg.Header
	if field == "" {
		field = DefaultCSRFField
	}
	if header == "" {
		header = DefaultCSRFHeader
	}
	header = http.CanonicalHeaderKey(header) // once, not per request
	return func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			r := c.RawRequest()
			switch r.Method {
			case http.MethodGet, http.MethodHead, http.MethodOptions:
				return next(c)
			}
			if r.Header.Get("Sec-Fetch-Site") != "" || r.Header.Get("Origin") != "" {
				if err := cop.Check(r); err != nil {
					return plinth.Forbidden("cross-origin request refused")
				}
				return next(c)
			}
			if !hasSessionCookie(c) {
				return next(c)
			}
			var token string
			if v := r.Header[header]; len(v) > 0 {
				token = v[0]
			}
			if token == "" {
				token = c.Request().PostFormValue(field)
			}
			ok, err := validToken(c, token)
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

// CSRFToken returns a token for the request's session, for a form field
// (CSRFField writes one) or the X-CSRF-Token header of a script's request.
// The session keeps one 32-byte secret, made at the first call; every token
// is that secret masked with fresh random bytes, so that no two responses
// carry the same bytes (which defeats BREACH-style compression attacks on
// HTTPS). Any token of the session is valid until the session ends.
func CSRFToken(c *plinth.Ctx) (string, error) {
	sess, err := SessionOf(c)
	if err != nil {
		return "", err
	}
	secret, ok := Get[[]byte](sess, csrfKey)
	if !ok || len(secret) != csrfSecretSize {
		secret = make([]byte, csrfSecretSize)
		_, _ = rand.Read(secret)
		sess.Put(csrfKey, secret)
	}
	var tok [2 * csrfSecretSize]byte
	_, _ = rand.Read(tok[:csrfSecretSize])
	for i := range csrfSecretSize {
		tok[csrfSecretSize+i] = tok[i] ^ secret[i]
	}
	return base64.RawURLEncoding.EncodeToString(tok[:]), nil
}

// CSRFField returns the hidden form field carrying CSRFToken, for
// {{ csrfField }} in templates.
func CSRFField(c *plinth.Ctx) (template.HTML, error) {
	tok, err := CSRFToken(c)
	if err != nil {
		return "", err
	}
	// The token is base64url: nothing in it needs escaping.
	return template.HTML(`<input type="hidden" name="` + DefaultCSRFField + `" value="` + tok + `">`), nil
}

// validToken reports whether token unmasks to the session's secret.
func validToken(c *plinth.Ctx, token string) (bool, error) {
	if len(token) != base64.RawURLEncoding.EncodedLen(2*csrfSecretSize) {
		return false, nil
	}
	sess, err := SessionOf(c)
	if err != nil {
		return false, err
	}
	secret, ok := Get[[]byte](sess, csrfKey)
	if !ok || len(secret) != csrfSecretSize {
		return false, nil
	}
	var tok [2 * csrfSecretSize]byte
	if n, err := base64.RawURLEncoding.Decode(tok[:], stringBytes(token)); err != nil || n != len(tok) {
		return false, nil
	}
	for i := range csrfSecretSize {
		tok[csrfSecretSize+i] ^= tok[i]
	}
	return subtle.ConstantTimeCompare(tok[csrfSecretSize:], secret) == 1, nil
}
