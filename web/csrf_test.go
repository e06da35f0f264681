package web_test

import (
	"context"
	"encoding/base64"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/web"
)

func csrfApp(t *testing.T) *plinth.App {
	t.Helper()
	return csrfAppWith(t, web.SessionsConfig{}, web.CSRFConfig{TrustedOrigins: []string{"https://partner.example"}}, true)
}

// csrfAppWith is an App with Sessions and CSRF, the Sessions first when
// sessionsFirst, serving /form (CSRFField), /token (CSRFToken), /put (a
// session value), POST /login and /logout (Auth) and POST /act.
func csrfAppWith(t *testing.T, scfg web.SessionsConfig, cfg web.CSRFConfig, sessionsFirst bool) *plinth.App {
	t.Helper()
	s, err := web.NewSessions(scfg)
	if err != nil {
		t.Fatal(err)
	}
	app := plinth.New()
	if sessionsFirst {
		s.Attach(app)
		app.Use(web.CSRF(cfg))
	} else {
		app.Use(web.CSRF(cfg))
		s.Attach(app)
	}
	auth := web.NewAuth(web.AuthConfig[string]{LoadUser: func(_ context.Context, id string) (string, error) { return id, nil }})
	auth.Attach(app)
	app.Post("/login", func(c *plinth.Ctx) error {
		if err := auth.Login(c, "ada"); err != nil {
			return err
		}
		return c.Text(200, "in")
	})
	app.Post("/logout", func(c *plinth.Ctx) error {
		if err := auth.Logout(c); err != nil {
			return err
		}
		return c.Text(200, "out")
	})
	app.Get("/put", func(c *plinth.Ctx) error {
		sess, err := web.SessionOf(c)
		if err != nil {
			return err
		}
		sess.Put("cart", "1")
		return c.Text(200, "ok")
	})
	app.Get("/form", func(c *plinth.Ctx) error {
		f, err := web.CSRFField(c)
		if err != nil {
			return err
		}
		return c.HTML(200, `<form method="post">`+string(f)+`</form>`)
	})
	app.Get("/token", func(c *plinth.Ctx) error {
		tok, err := web.CSRFToken(c)
		if err != nil {
			return err
		}
		return c.Text(200, tok)
	})
	app.Post("/act", func(c *plinth.Ctx) error { return c.Text(200, "done") })
	return app
}

var tokenField = regexp.MustCompile(`name="csrf_token" value="([A-Za-z0-9_-]+)"`)

// TestCSRF is the behaviour table: browsers' headers decide when present;
// without them a request carrying the session cookie needs the token.
func TestCSRF(t *testing.T) {
	app := csrfApp(t)
	cl := newClient(t, app)
	m := tokenField.FindStringSubmatch(cl.get("/form"))
	if m == nil {
		t.Fatal("no csrf field in the form")
	}
	token := m[1]
	if token2 := cl.get("/token"); token2 == token || len(token2) != len(token) {
		t.Errorf("tokens are not masked afresh: %q %q", token, token2)
	}
	withCookie := func() *client {
		c := newClient(t, app)
		c.cookie = cl.cookie
		return c
	}
	form := url.Values{"csrf_token": {token}}.Encode()
	cases := []struct {
		name   string
		client *client
		body   string
		header []string
		want   int
	}{
		{"same-origin fetch metadata", withCookie(), "", []string{"Sec-Fetch-Site", "same-origin"}, 200},
		{"user typed it (none)", withCookie(), "", []string{"Sec-Fetch-Site", "none"}, 200},
		{"cross-site", withCookie(), form, []string{"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"}, 403},
		{"same-site sibling", withCookie(), form, []string{"Sec-Fetch-Site", "same-site", "Origin", "https://other.example.com"}, 403},
		{"cross-site trusted origin", withCookie(), "", []string{"Sec-Fetch-Site", "cross-site", "Origin", "https://partner.example"}, 200},
		{"old browser, Origin matches Host", withCookie(), "", []string{"Origin", "http://example.com"}, 200},
		{"old browser, other Origin", withCookie(), form, []string{"Origin", "https://evil.example"}, 403},
		{"no headers, cookie, no token", withCookie(), "", nil, 403},
		{"empty headers, cookie, no token", withCookie(), "", []string{"Sec-Fetch-Site", "", "Origin", ""}, 403},
		{"no headers, cookie, good token", withCookie(), form, nil, 200},
		{"no headers, cookie, token in header", withCookie(), "", []string{"X-CSRF-Token", token}, 200},
		{"no headers, cookie, bad token", withCookie(), url.Values{"csrf_token": {strings.Repeat("A", len(token))}}.Encode(), nil, 403},
		{"no headers, cookie, truncated token", withCookie(), url.Values{"csrf_token": {token[:20]}}.Encode(), nil, 403},
		{"no headers, no cookie (API client)", newClient(t, app), "", nil, 200},
		{"no headers, a session cookie but no CSRF cookie, good token", cookieClient(t, app, map[string]string{"session": strings.Repeat("A", 43)}), form, nil, 403},
	}
	for _, tc := range cases {
		w := tc.client.do("POST", "/act", tc.body, tc.header...)
		if w.Code != tc.want {
			t.Errorf("%s: %d, want %d (%s)", tc.name, w.Code, tc.want, w.Body)
		}
		if tc.want == 403 && (!strings.Contains(w.Header().Get("Content-Type"), "problem+json") || strings.Contains(w.Body.String(), "done")) {
			t.Errorf("%s: refusal is %q %q", tc.name, w.Header().Get("Content-Type"), w.Body)
		}
	}
	// A token of another visitor is refused.
	other := newClient(t, app)
	otherTok := other.get("/token")
	w := withCookie().do("POST", "/act", url.Values{"csrf_token": {otherTok}}.Encode())
	if w.Code != 403 {
		t.Errorf("another session's token: %d", w.Code)
	}
	// Safe methods pass whatever the headers.
	r := httptest.NewRequest("GET", "/form", nil)
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, r)
	if rec.Code != 200 {
		t.Errorf("cross-site GET: %d", rec.Code)
	}
}

func cookieClient(t *testing.T, h http.Handler, jar map[string]string) *client {
	c := newClient(t, h)
	maps.Copy(c.cookie, jar)
	return c
}

// csrfToken gets /form with cl and returns the form's token.
func csrfToken(t *testing.T, cl *client) string {
	t.Helper()
	m := tokenField.FindStringSubmatch(cl.get("/form"))
	if m == nil {
		t.Fatal("no csrf field in the form")
	}
	return m[1]
}

// TestCSRFAnonymousNoSession: anonymous visitors' forms store nothing on
// the server (before, every anonymous GET of a form created a
// session, and a flood of them evicted signed-in users); the secret is in
// a cookie of its own, whose forgery, tampering or absence is refused.
func TestCSRFAnonymousNoSession(t *testing.T) {
	store := &countingStore{Store: web.NewMemoryStore(web.MemoryStoreConfig{})}
	app := csrfAppWith(t, web.SessionsConfig{Store: store}, web.CSRFConfig{}, true)
	const n = 1000
	var last *client
	for range n {
		last = newClient(t, app)
		w := last.do("GET", "/form", "")
		if w.Code != 200 || !tokenField.MatchString(w.Body.String()) {
			t.Fatalf("form: %d %s", w.Code, w.Body)
		}
		if _, ok := last.cookie["session"]; ok {
			t.Fatal("an anonymous form set a session cookie")
		}
	}
	if got := store.Store.(*web.MemoryStore).Len(); got != 0 || store.saves.Load() != 0 {
		t.Fatalf("%d anonymous forms left %d sessions in the store (%d saves), want 0", n, got, store.saves.Load())
	}
	token := csrfToken(t, last)
	form := url.Values{"csrf_token": {token}}.Encode()
	if w := last.do("POST", "/act", form); w.Code != 200 {
		t.Fatalf("the form's token with its cookie: %d %s", w.Code, w.Body)
	}
	good := last.cookie["csrf"]
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	// A secret of the attacker's choosing with a made-up tag.
	forged := base64.RawURLEncoding.EncodeToString(make([]byte, 64))
	forgedTok := base64.RawURLEncoding.EncodeToString(make([]byte, 64)) // zero pad, zero secret
	other := csrfAppWith(t, web.SessionsConfig{}, web.CSRFConfig{}, true)
	foreign := newClient(t, other)
	foreignTok := csrfToken(t, foreign)
	for _, tc := range []struct {
		name, cookie, token string
	}{
		{"forged cookie, matching token", forged, forgedTok},
		{"tampered secret", flip(good, 0), token},
		{"tampered tag", flip(good, len(good)-2), token},
		{"truncated cookie", good[:40], token},
		{"cookie of another key, its token", foreign.cookie["csrf"], foreignTok},
		{"absent cookie (another one sent)", "", token},
	} {
		jar := map[string]string{"theme": "dark"}
		if tc.cookie != "" {
			jar["csrf"] = tc.cookie
		}
		w := cookieClient(t, app, jar).do("POST", "/act", url.Values{"csrf_token": {tc.token}}.Encode())
		if w.Code != 403 {
			t.Errorf("%s: %d, want 403", tc.name, w.Code)
		}
	}
}

// TestCSRFCookie: the cookie's name and attributes, over HTTP and HTTPS,
// and the response marked as the visitor's.
func TestCSRFCookie(t *testing.T) {
	app := csrfApp(t)
	for _, tls := range []bool{false, true} {
		cl := newClient(t, app)
		cl.tls = tls
		base := "http://example.com"
		if tls {
			base = "https://example.com"
		}
		w := cl.do("GET", base+"/form", "")
		sc := w.Header().Values("Set-Cookie")
		want, attrs := "csrf=", []string{"; Path=/", "; HttpOnly", "; SameSite=Lax"}
		if tls {
			want, attrs = "__Host-csrf=", append(attrs, "; Secure")
		}
		if len(sc) != 1 || !strings.HasPrefix(sc[0], want) {
			t.Fatalf("tls=%v: Set-Cookie %q, want one %s", tls, sc, want)
		}
		for _, a := range attrs {
			if !strings.Contains(sc[0], a) {
				t.Errorf("tls=%v: %q lacks %q", tls, sc[0], a)
			}
		}
		if !tls && strings.Contains(sc[0], "Secure") {
			t.Errorf("Secure over HTTP: %q", sc[0])
		}
		if w.Header().Get("Cache-Control") != "no-store" || !strings.Contains(w.Header().Get("Vary"), "Cookie") {
			t.Errorf("tls=%v: a page with a token is cacheable: %q %q", tls, w.Header().Get("Cache-Control"), w.Header().Get("Vary"))
		}
		// The cookie is reused, not set again.
		if w := cl.do("GET", base+"/form", ""); len(w.Header().Values("Set-Cookie")) != 0 {
			t.Errorf("tls=%v: cookie set again: %q", tls, w.Header().Values("Set-Cookie"))
		}
		m := tokenField.FindStringSubmatch(cl.do("GET", base+"/form", "").Body.String())
		if m == nil {
			t.Fatal("no token")
		}
		if w := cl.do("POST", base+"/act", url.Values{"csrf_token": {m[1]}}.Encode()); w.Code != 200 {
			t.Errorf("tls=%v: post with token: %d", tls, w.Code)
		}
	}
}

// TestCSRFOrder: CSRF holds whichever of it and the Sessions is installed
// first (before, installed ahead of the sessions, a POST with
// the session cookie and no token reached the handler).
func TestCSRFOrder(t *testing.T) {
	for _, csrfFirst := range []bool{false, true} {
		app := csrfAppWith(t, web.SessionsConfig{}, web.CSRFConfig{}, !csrfFirst)
		cl := newClient(t, app)
		cl.get("/put") // a session with a value: its cookie
		if _, ok := cl.cookie["session"]; !ok {
			t.Fatalf("csrfFirst=%v: no session cookie", csrfFirst)
		}
		if w := cl.do("POST", "/act", ""); w.Code != 403 {
			t.Errorf("csrfFirst=%v: session cookie, no token, no headers: %d, want 403", csrfFirst, w.Code)
		}
		if w := cl.do("POST", "/act", "csrf_token=x"); w.Code != 403 {
			t.Errorf("csrfFirst=%v: bad token: %d, want 403", csrfFirst, w.Code)
		}
		token := csrfToken(t, cl)
		if w := cl.do("POST", "/act", url.Values{"csrf_token": {token}}.Encode()); w.Code != 200 {
			t.Errorf("csrfFirst=%v: good token: %d, want 200", csrfFirst, w.Code)
		}
	}
}

// TestCSRFRotatesAtLogin: a token taken before sign-in is refused after
// it, and after sign-out; a signed-in session's
// secret is bound to it, so that another visitor's valid cookie and token
// planted in the browser are refused.
func TestCSRFRotatesAtLogin(t *testing.T) {
	app := csrfAppWith(t, web.SessionsConfig{}, web.CSRFConfig{}, true)
	cl := newClient(t, app)
	before := csrfToken(t, cl)
	post := func(path, token string) int {
		return cl.do("POST", path, url.Values{"csrf_token": {token}}.Encode()).Code
	}
	if code := post("/login", before); code != 200 {
		t.Fatalf("login with the anonymous token: %d", code)
	}
	if code := post("/act", before); code != 403 {
		t.Errorf("the token taken before sign-in, after it: %d, want 403", code)
	}
	after := csrfToken(t, cl)
	if code := post("/act", after); code != 200 {
		t.Fatalf("a token taken after sign-in: %d", code)
	}
	// Another visitor's cookie and token, planted in the signed-in browser.
	attacker := newClient(t, app)
	atok := csrfToken(t, attacker)
	victim := cookieClient(t, app, cl.cookie)
	victim.cookie["csrf"] = attacker.cookie["csrf"]
	if w := victim.do("POST", "/act", url.Values{"csrf_token": {atok}}.Encode()); w.Code != 403 {
		t.Errorf("a planted cookie with its token in a signed-in browser: %d, want 403", w.Code)
	}
	// The CSRF cookie lost: the next form issues the session's secret again.
	lost := cookieClient(t, app, cl.cookie)
	delete(lost.cookie, "csrf")
	if tok := csrfToken(t, lost); lost.do("POST", "/act", url.Values{"csrf_token": {tok}}.Encode()).Code != 200 {
		t.Error("after losing the CSRF cookie, a new form's token is refused")
	}
	if code := post("/logout", after); code != 200 {
		t.Fatalf("logout: %d", code)
	}
	if code := post("/act", after); code != 403 {
		t.Errorf("the signed-in token after sign-out: %d, want 403", code)
	}
}

// TestCSRFFieldName: CSRFField writes CSRFConfig.Field, which the check
// reads (before, it wrote csrf_token whatever the config).
func TestCSRFFieldName(t *testing.T) {
	app := csrfAppWith(t, web.SessionsConfig{}, web.CSRFConfig{Field: "authenticity_token"}, true)
	cl := newClient(t, app)
	m := regexp.MustCompile(`name="authenticity_token" value="([A-Za-z0-9_-]+)"`).FindStringSubmatch(cl.get("/form"))
	if m == nil {
		t.Fatal("the form's field is not named as configured")
	}
	if w := cl.do("POST", "/act", url.Values{"authenticity_token": {m[1]}}.Encode()); w.Code != 200 {
		t.Errorf("post with the configured field: %d", w.Code)
	}
}

// TestCSRFTokenWithoutMiddleware: CSRFToken needs the CSRF middleware,
// whose keys sign the cookie.
func TestCSRFTokenWithoutMiddleware(t *testing.T) {
	app := plinth.New()
	app.Get("/", func(c *plinth.Ctx) error {
		_, err := web.CSRFToken(c)
		return err
	})
	w := httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != 500 {
		t.Errorf("CSRFToken without CSRF: %d, want 500", w.Code)
	}
}

// TestCSRFSharedKeys: instances given the same PLINTH_CSRF_KEYS accept
// each other's cookies; a key rotated out of the list is refused.
func TestCSRFSharedKeys(t *testing.T) {
	k1 := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("1", 32)))
	k2 := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("2", 32)))
	t.Setenv("PLINTH_CSRF_KEYS", k1)
	a := csrfAppWith(t, web.SessionsConfig{}, web.CSRFConfig{}, true)
	t.Setenv("PLINTH_CSRF_KEYS", k2+", "+k1) // rotation: k2 signs, k1 still verifies
	b := csrfAppWith(t, web.SessionsConfig{}, web.CSRFConfig{}, true)
	t.Setenv("PLINTH_CSRF_KEYS", k2)
	c := csrfAppWith(t, web.SessionsConfig{}, web.CSRFConfig{}, true)
	cl := newClient(t, a)
	form := url.Values{"csrf_token": {csrfToken(t, cl)}}.Encode()
	if w := cookieClient(t, b, cl.cookie).do("POST", "/act", form); w.Code != 200 {
		t.Errorf("another instance with the key among its keys: %d, want 200", w.Code)
	}
	if w := cookieClient(t, c, cl.cookie).do("POST", "/act", form); w.Code != 403 {
		t.Errorf("an instance without the key: %d, want 403", w.Code)
	}
}

func TestCSRFBadKeys(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a short key did not panic")
		}
	}()
	web.CSRF(web.CSRFConfig{Keys: [][]byte{make([]byte, 16)}})
}

func TestCSRFBadTrustedOrigin(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a bad trusted origin did not panic")
		}
	}()
	web.CSRF(web.CSRFConfig{TrustedOrigins: []string{"https://x.example/path"}})
}

// Validate returns, as an error naming the field or the variable, what CSRF
// would panic on, so that origins and keys read from data are checked first.
func TestCSRFConfigValidate(t *testing.T) {
	if err := (web.CSRFConfig{TrustedOrigins: []string{"https://partner.example"}}).Validate(); err != nil {
		t.Errorf("a good config: %v", err)
	}
	for name, tc := range map[string]struct {
		cfg  web.CSRFConfig
		env  string
		want string
	}{
		"origin with a path": {web.CSRFConfig{TrustedOrigins: []string{"https://a.example", "https://x.example/path"}}, "", "CSRFConfig.TrustedOrigins[1]"},
		"short key":          {web.CSRFConfig{Keys: [][]byte{make([]byte, 16)}}, "", "CSRFConfig.Keys[0]: 16 bytes, want 32"},
		"env not base64":     {web.CSRFConfig{}, "not base64!", "PLINTH_CSRF_KEYS: key 1"},
		"env short key":      {web.CSRFConfig{}, base64.StdEncoding.EncodeToString(make([]byte, 8)), "PLINTH_CSRF_KEYS: key 1: 8 bytes, want 32"},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("PLINTH_CSRF_KEYS", tc.env)
			}
			err := tc.cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate: %v, want an error containing %q", err, tc.want)
			}
			defer func() {
				if r := recover(); r != err.Error() {
					t.Errorf("CSRF panicked with %v, want Validate's error %q", r, err)
				}
			}()
			web.CSRF(tc.cfg)
		})
	}
}
