package web_test

// Boundary tests of CSRF from mutation testing. They
// check the CSRF cookie against its documented format computed here
// independently (the secret and HMAC-SHA256 under CSRFConfig.Keys of the
// cookie's name, a zero byte and the secret, unpadded base64url), forge
// cookies and tokens from that format, and check every length at exactly
// its limit: a token one character short or long, a key one byte short or
// long.

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/web"
)

func bndKey(b byte) []byte { return bytes.Repeat([]byte{b}, web.CSRFKeySize) }

// bndTag is the cookie's HMAC, computed from the documented format.
func bndTag(key []byte, name string, secret []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(name))
	m.Write([]byte{0})
	m.Write(secret)
	return m.Sum(nil)
}

// bndCookieValue is a CSRF cookie value holding secret, signed with key.
func bndCookieValue(key []byte, name string, secret []byte) string {
	return base64.RawURLEncoding.EncodeToString(append(bytes.Clone(secret), bndTag(key, name, secret)...))
}

// bndToken masks secret with mask as CSRFToken does: mask, then mask XOR
// secret, in unpadded base64url.
func bndToken(secret, mask []byte) string {
	tok := append([]byte(nil), mask...)
	for i := range secret {
		tok = append(tok, mask[i]^secret[i])
	}
	return base64.RawURLEncoding.EncodeToString(tok)
}

func bndSecret(b byte) []byte {
	s := make([]byte, 32)
	for i := range s {
		s[i] = b + byte(i)
	}
	return s
}

// bndCSRFApp: GET /form answers CSRFToken, POST /submit answers "ok".
func bndCSRFApp(t *testing.T, cfg web.CSRFConfig) *plinth.App {
	t.Helper()
	app := plinth.New()
	app.Use(web.CSRF(cfg))
	app.Get("/form", func(c *plinth.Ctx) error {
		tok, err := web.CSRFToken(c)
		if err != nil {
			return err
		}
		return c.Text(200, tok)
	})
	app.Get("/field", func(c *plinth.Ctx) error {
		f, err := web.CSRFField(c)
		if err != nil {
			return err
		}
		return c.Text(200, string(f))
	})
	app.Get("/own-cache", func(c *plinth.Ctx) error {
		c.Header().Set("Cache-Control", "private, max-age=60")
		tok, err := web.CSRFToken(c)
		if err != nil {
			return err
		}
		return c.Text(200, tok)
	})
	app.Get("/late", func(c *plinth.Ctx) error {
		c.Header().Set("Content-Type", "text/plain")
		c.Writer().WriteHeader(200)
		_, err := web.CSRFToken(c)
		fmt.Fprintf(c.Writer(), "err=%v", err != nil)
		return nil
	})
	app.Post("/submit", func(c *plinth.Ctx) error { return c.Text(200, "ok") })
	return app
}

func bndServe(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// bndPost posts to /submit with the CSRF cookie cookieName=cookie (none
// when ""), the token in the header hdr (none when "") and in the form
// field (none when "").
func bndPost(h http.Handler, target, cookieName, cookie, hdr, field string) *httptest.ResponseRecorder {
	body := ""
	if field != "" {
		body = url.Values{web.DefaultCSRFField: {field}}.Encode()
	}
	r := httptest.NewRequest("POST", target, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if cookie != "" {
		r.AddCookie(&http.Cookie{Name: cookieName, Value: cookie})
	}
	if hdr != "" {
		r.Header.Set(web.DefaultCSRFHeader, hdr)
	}
	return bndServe(h, r)
}

// The cookie CSRFToken sets has exactly the documented format, name and
// attributes, over HTTP and over HTTPS, and its token unmasks to its
// secret.
func TestCSRFCookieFormat(t *testing.T) {
	key := bndKey(7)
	app := bndCSRFApp(t, web.CSRFConfig{Keys: [][]byte{key}})
	for _, c := range []struct {
		target, name, tail string
	}{
		{"http://example.com/form", web.CSRFCookie, "; Path=/; HttpOnly; SameSite=Lax"},
		{"https://example.com/form", web.CSRFSecureCookie, "; Path=/; HttpOnly; SameSite=Lax; Secure"},
	} {
		w := bndServe(app, httptest.NewRequest("GET", c.target, nil))
		set := w.Header().Values("Set-Cookie")
		if len(set) != 1 {
			t.Fatalf("%s: Set-Cookie %q", c.target, set)
		}
		v, ok := strings.CutPrefix(set[0], c.name+"=")
		if !ok {
			t.Fatalf("%s: cookie %q, want %s=", c.target, set[0], c.name)
		}
		v, ok = strings.CutSuffix(v, c.tail)
		if !ok || strings.Contains(v, ";") {
			t.Fatalf("%s: cookie %q, want the attributes %q exactly", c.target, set[0], c.tail)
		}
		raw, err := base64.RawURLEncoding.DecodeString(v)
		if err != nil || len(raw) != 64 {
			t.Fatalf("%s: cookie value %q: %d bytes, %v", c.target, v, len(raw), err)
		}
		secret, tag := raw[:32], raw[32:]
		if !hmac.Equal(tag, bndTag(key, c.name, secret)) {
			t.Errorf("%s: the cookie's tag is not HMAC-SHA256(key, name 0 secret)", c.target)
		}
		tok, err := base64.RawURLEncoding.DecodeString(w.Body.String())
		if err != nil || len(tok) != 64 {
			t.Fatalf("%s: token %q", c.target, w.Body.String())
		}
		for i := range 32 {
			if tok[i]^tok[32+i] != secret[i] {
				t.Fatalf("%s: the token does not unmask to the cookie's secret", c.target)
			}
		}
		if !strings.Contains(strings.Join(w.Header().Values("Vary"), ","), "Cookie") || w.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("%s: Vary %q Cache-Control %q", c.target, w.Header().Values("Vary"), w.Header().Get("Cache-Control"))
		}
	}
}

// A cookie and a token made from the documented format, not by CSRFToken,
// pass; a cookie signed under another key, or under the other cookie name,
// or with a tag one bit off, does not.
func TestCSRFForgedFromFormat(t *testing.T) {
	key := bndKey(7)
	app := bndCSRFApp(t, web.CSRFConfig{Keys: [][]byte{key}})
	secret, mask := bndSecret(40), bndSecret(100)
	tok := bndToken(secret, mask)
	good := bndCookieValue(key, web.CSRFCookie, secret)
	if w := bndPost(app, "/submit", web.CSRFCookie, good, tok, ""); w.Code != 200 {
		t.Fatalf("a cookie and token of the documented format: %d", w.Code)
	}
	if w := bndPost(app, "https://example.com/submit", web.CSRFSecureCookie,
		bndCookieValue(key, web.CSRFSecureCookie, secret), tok, ""); w.Code != 200 {
		t.Errorf("the secure cookie over HTTPS: %d", w.Code)
	}

	raw, _ := base64.RawURLEncoding.DecodeString(good)
	raw[63] ^= 1
	for name, c := range map[string]struct{ target, cookieName, value string }{
		"another key":                 {"/submit", web.CSRFCookie, bndCookieValue(bndKey(8), web.CSRFCookie, secret)},
		"tag one bit off":             {"/submit", web.CSRFCookie, base64.RawURLEncoding.EncodeToString(raw)},
		"signed for the other name":   {"/submit", web.CSRFCookie, bndCookieValue(key, web.CSRFSecureCookie, secret)},
		"plain cookie over HTTPS":     {"https://example.com/submit", web.CSRFSecureCookie, good},
		"plain cookie name over TLS":  {"https://example.com/submit", web.CSRFCookie, good},
		"cookie one character short":  {"/submit", web.CSRFCookie, good[:len(good)-1]},
		"cookie one character longer": {"/submit", web.CSRFCookie, good + "A"},
		"cookie not base64":           {"/submit", web.CSRFCookie, "*" + good[1:]},
	} {
		if w := bndPost(app, c.target, c.cookieName, c.value, tok, ""); w.Code != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", name, w.Code)
		}
	}
	// The token of another secret fails with the good cookie.
	if w := bndPost(app, "/submit", web.CSRFCookie, good, bndToken(bndSecret(41), mask), ""); w.Code != http.StatusForbidden {
		t.Errorf("a token of another secret: %d, want 403", w.Code)
	}
}

// The token is exactly 86 characters: one fewer or one more is refused,
// as are a bad character, an empty token and none; the header wins over
// the form field, which serves when the header is absent.
func TestCSRFTokenLength(t *testing.T) {
	key := bndKey(7)
	app := bndCSRFApp(t, web.CSRFConfig{Keys: [][]byte{key}})
	secret := bndSecret(1)
	cookie := bndCookieValue(key, web.CSRFCookie, secret)
	tok := bndToken(secret, bndSecret(200))
	if len(tok) != 86 {
		t.Fatalf("token of %d characters", len(tok))
	}
	for name, c := range map[string]struct {
		hdr, field string
		want       int
	}{
		"header":                {tok, "", 200},
		"form field":            {"", tok, 200},
		"header wins":           {tok, "bad", 200},
		"bad header, good form": {"bad", tok, http.StatusForbidden},
		"one short":             {tok[:85], "", http.StatusForbidden},
		"one more":              {tok + "A", "", http.StatusForbidden},
		"bad character":         {"*" + tok[1:], "", http.StatusForbidden},
		"padded":                {tok[:84] + "==", "", http.StatusForbidden},
		"none":                  {"", "", http.StatusForbidden},
	} {
		if w := bndPost(app, "/submit", web.CSRFCookie, cookie, c.hdr, c.field); w.Code != c.want {
			t.Errorf("%s: %d, want %d", name, w.Code, c.want)
		}
	}
}

// Only a request carrying a cookie needs a token: a blank Cookie header is
// no cookie, any other cookie is one.
func TestCSRFBlankCookieHeader(t *testing.T) {
	app := bndCSRFApp(t, web.CSRFConfig{})
	post := func(cookie string) int {
		r := httptest.NewRequest("POST", "/submit", nil)
		if cookie != "-" {
			r.Header["Cookie"] = []string{cookie}
		}
		return bndServe(app, r).Code
	}
	if got := post("-"); got != 200 {
		t.Errorf("no Cookie header: %d, want 200", got)
	}
	if got := post("  "); got != 200 {
		t.Errorf("a blank Cookie header: %d, want 200", got)
	}
	if got := post("theme=dark"); got != http.StatusForbidden {
		t.Errorf("another cookie without a token: %d, want 403", got)
	}
	// Safe methods never need one.
	r := httptest.NewRequest("GET", "/form", nil)
	r.Header.Set("Cookie", "theme=dark")
	if w := bndServe(app, r); w.Code != 200 {
		t.Errorf("GET with a cookie: %d", w.Code)
	}
}

// Browsers' headers decide for them: same-origin passes, cross-site is
// refused unless its Origin is trusted.
func TestCSRFBrowserHeaders(t *testing.T) {
	app := bndCSRFApp(t, web.CSRFConfig{TrustedOrigins: []string{"https://admin.example.com"}})
	for name, c := range map[string]struct {
		site, origin string
		want         int
	}{
		"same-origin":           {"same-origin", "", 200},
		"cross-site":            {"cross-site", "https://evil.example", http.StatusForbidden},
		"cross-site trusted":    {"cross-site", "https://admin.example.com", 200},
		"Origin only, same":     {"", "http://example.com", 200},
		"Origin only, other":    {"", "https://evil.example", http.StatusForbidden},
		"Origin only, trusted":  {"", "https://admin.example.com", 200},
		"cross-site, no Origin": {"cross-site", "", http.StatusForbidden},
	} {
		r := httptest.NewRequest("POST", "http://example.com/submit", nil)
		r.Header.Set("Cookie", "theme=dark") // a credential, and no token: the browser headers alone decide
		if c.site != "" {
			r.Header.Set("Sec-Fetch-Site", c.site)
		}
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		if w := bndServe(app, r); w.Code != c.want {
			t.Errorf("%s: %d, want %d", name, w.Code, c.want)
		}
	}
}

// A request whose cookie holds a valid secret gets no new cookie from
// CSRFToken; one whose cookie is bad gets a new one. A handler's own
// Cache-Control stays.
func TestCSRFCookieSetOnlyWhenNeeded(t *testing.T) {
	key := bndKey(7)
	app := bndCSRFApp(t, web.CSRFConfig{Keys: [][]byte{key}})
	secret := bndSecret(9)
	get := func(target, cookie string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", target, nil)
		if cookie != "" {
			r.AddCookie(&http.Cookie{Name: web.CSRFCookie, Value: cookie})
		}
		return bndServe(app, r)
	}
	w := get("/form", bndCookieValue(key, web.CSRFCookie, secret))
	if set := w.Header().Values("Set-Cookie"); len(set) != 0 {
		t.Errorf("a valid cookie was set again: %q", set)
	}
	tok, _ := base64.RawURLEncoding.DecodeString(w.Body.String())
	if len(tok) != 64 {
		t.Fatalf("token %q", w.Body.String())
	}
	for i := range 32 {
		if tok[i]^tok[32+i] != secret[i] {
			t.Fatal("the token is not of the cookie's secret")
		}
	}
	w = get("/form", bndCookieValue(bndKey(8), web.CSRFCookie, secret))
	if set := w.Header().Values("Set-Cookie"); len(set) != 1 {
		t.Errorf("a cookie of another key was not replaced: %q", set)
	}
	w = get("/own-cache", "")
	if got := w.Header().Get("Cache-Control"); got != "private, max-age=60" {
		t.Errorf("the handler's Cache-Control was replaced: %q", got)
	}

	// After the response started: without a cookie, CSRFToken cannot set
	// one and fails; with a valid one it needs none and works.
	if w := get("/late", ""); w.Body.String() != "err=true" {
		t.Errorf("late CSRFToken without a cookie: %q", w.Body.String())
	}
	if w := get("/late", bndCookieValue(key, web.CSRFCookie, secret)); w.Body.String() != "err=false" {
		t.Errorf("late CSRFToken with a valid cookie: %q", w.Body.String())
	}
}

// Keys rotate: the first signs, every key verifies.
func TestCSRFKeyRotation(t *testing.T) {
	newKey, oldKey := bndKey(1), bndKey(2)
	app := bndCSRFApp(t, web.CSRFConfig{Keys: [][]byte{newKey, oldKey}})
	secret := bndSecret(3)
	tok := bndToken(secret, bndSecret(77))
	for name, c := range map[string]struct {
		key  []byte
		want int
	}{
		"first key":   {newKey, 200},
		"second key":  {oldKey, 200},
		"dropped key": {bndKey(3), http.StatusForbidden},
	} {
		if w := bndPost(app, "/submit", web.CSRFCookie, bndCookieValue(c.key, web.CSRFCookie, secret), tok, ""); w.Code != c.want {
			t.Errorf("a cookie signed with the %s: %d, want %d", name, w.Code, c.want)
		}
	}
	w := bndServe(app, httptest.NewRequest("GET", "/form", nil))
	v, _, _ := strings.Cut(strings.TrimPrefix(w.Header().Get("Set-Cookie"), web.CSRFCookie+"="), ";")
	raw, _ := base64.RawURLEncoding.DecodeString(v)
	if len(raw) != 64 || !hmac.Equal(raw[32:], bndTag(newKey, web.CSRFCookie, raw[:32])) {
		t.Errorf("a new cookie is not signed with the first key")
	}
}

// A key is exactly CSRFKeySize bytes: one fewer or one more panics, naming
// the key's index.
func TestCSRFKeySize(t *testing.T) {
	panicText := func(keys ...[]byte) (s string) {
		defer func() {
			if r := recover(); r != nil {
				s = fmt.Sprint(r)
			}
		}()
		web.CSRF(web.CSRFConfig{Keys: keys})
		return ""
	}
	if got := panicText(bndKey(1), bndKey(2)); got != "" {
		t.Errorf("two keys of 32 bytes: panic %q", got)
	}
	if got := panicText(bndKey(1), bndKey(2)[:31]); !strings.Contains(got, "[1]") || !strings.Contains(got, "31 bytes") {
		t.Errorf("a key of 31 bytes: panic %q", got)
	}
	if got := panicText(append(bndKey(1), 0)); !strings.Contains(got, "[0]") || !strings.Contains(got, "33 bytes") {
		t.Errorf("a key of 33 bytes: panic %q", got)
	}
}

// PLINTH_CSRF_KEYS replaces CSRFConfig.Keys; empty, it is ignored; a bad
// key in it panics, numbered from 1.
func TestCSRFKeysFromEnvironment(t *testing.T) {
	envKey, cfgKey := bndKey(5), bndKey(6)
	secret := bndSecret(11)
	tok := bndToken(secret, bndSecret(99))
	post := func(app http.Handler, key []byte) int {
		return bndPost(app, "/submit", web.CSRFCookie, bndCookieValue(key, web.CSRFCookie, secret), tok, "").Code
	}

	t.Setenv("PLINTH_CSRF_KEYS", base64.StdEncoding.EncodeToString(envKey))
	app := bndCSRFApp(t, web.CSRFConfig{Keys: [][]byte{cfgKey}})
	if post(app, envKey) != 200 || post(app, cfgKey) != http.StatusForbidden {
		t.Errorf("PLINTH_CSRF_KEYS did not replace the config's keys")
	}

	t.Setenv("PLINTH_CSRF_KEYS", "")
	app = bndCSRFApp(t, web.CSRFConfig{Keys: [][]byte{cfgKey}})
	if post(app, cfgKey) != 200 || post(app, envKey) != http.StatusForbidden {
		t.Errorf("an empty PLINTH_CSRF_KEYS was not ignored")
	}

	t.Setenv("PLINTH_CSRF_KEYS", base64.StdEncoding.EncodeToString(envKey)+", not-a-key")
	got := func() (s string) {
		defer func() { s = fmt.Sprint(recover()) }()
		web.CSRF(web.CSRFConfig{})
		return ""
	}()
	if !strings.Contains(got, "PLINTH_CSRF_KEYS: key 2") {
		t.Errorf("a bad second key: panic %q", got)
	}
}

// Field and Header names: defaults, custom ones, and CSRFField's HTML.
func TestCSRFFieldAndHeaderNames(t *testing.T) {
	key := bndKey(7)
	secret := bndSecret(21)
	cookie := &http.Cookie{Name: web.CSRFCookie, Value: bndCookieValue(key, web.CSRFCookie, secret)}
	tok := bndToken(secret, bndSecret(33))
	app := bndCSRFApp(t, web.CSRFConfig{Keys: [][]byte{key}, Field: `f"x`, Header: "x-my-token"})
	send := func(header, field, fieldValue string) int {
		r := httptest.NewRequest("POST", "/submit", strings.NewReader(url.Values{field: {fieldValue}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.AddCookie(cookie)
		if header != "" {
			r.Header.Set(header, tok)
		}
		return bndServe(app, r).Code
	}
	if got := send("X-My-Token", "", ""); got != 200 {
		t.Errorf("the custom header: %d", got)
	}
	if got := send("", `f"x`, tok); got != 200 {
		t.Errorf("the custom field: %d", got)
	}
	if got := send(web.DefaultCSRFHeader, web.DefaultCSRFField, tok); got != http.StatusForbidden {
		t.Errorf("the default names with custom ones configured: %d", got)
	}
	r := httptest.NewRequest("GET", "/field", nil)
	r.AddCookie(cookie)
	w := bndServe(app, r)
	want := `<input type="hidden" name="f&#34;x" value="`
	if body := w.Body.String(); !strings.HasPrefix(body, want) || !strings.HasSuffix(body, `">`) || len(body) != len(want)+86+2 {
		t.Errorf("CSRFField: %q", body)
	}
}

// Login on a route without the CSRF middleware expires the CSRF cookie
// (Secure over HTTPS) instead of setting one it cannot sign.
func TestCSRFLoginWithoutMiddlewareExpiresCookie(t *testing.T) {
	s, err := web.NewSessions(web.SessionsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	auth := web.NewAuth(web.AuthConfig[string]{LoadUser: func(_ context.Context, id string) (string, error) { return id, nil }})
	app := plinth.New()
	s.Attach(app)
	auth.Attach(app)
	app.Post("/login", func(c *plinth.Ctx) error {
		if err := auth.Login(c, "1"); err != nil {
			return err
		}
		return c.Text(200, "ok")
	})
	for target, want := range map[string]string{
		"http://example.com/login":  web.CSRFCookie + "=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax",
		"https://example.com/login": web.CSRFSecureCookie + "=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure",
	} {
		w := bndServe(app, httptest.NewRequest("POST", target, nil))
		var got []string
		for _, v := range w.Header().Values("Set-Cookie") {
			if strings.HasPrefix(v, web.CSRFCookie+"=") || strings.HasPrefix(v, web.CSRFSecureCookie+"=") {
				got = append(got, v)
			}
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s: CSRF Set-Cookie %q, want %q", target, got, want)
		}
	}
}
