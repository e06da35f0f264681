package main

import (
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// server starts the example on a test server.
func server(t *testing.T) *httptest.Server {
	t.Helper()
	app, err := NewApp()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app)
	t.Cleanup(srv.Close)
	return srv
}

// browser is an HTTP client that keeps cookies, follows no redirects and
// sends what a browser's same-origin navigation sends.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newBrowser(t *testing.T, srv *httptest.Server) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: srv.URL, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

func (b *browser) do(method, path string, form url.Values, header ...string) (*http.Response, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.base+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp, string(data)
}

func (b *browser) login(password string) *http.Response {
	resp, _ := b.do("POST", "/login", url.Values{"email": {DemoEmail}, "password": {password}})
	return resp
}

func TestLoginForm(t *testing.T) {
	b := newBrowser(t, server(t))
	resp, body := b.do("GET", "/login", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /login: %d", resp.StatusCode)
	}
	for _, want := range []string{`name="email"`, `name="password"`, `name="csrf_token"`, `<form method="post" action="/login"`} {
		if !strings.Contains(body, want) {
			t.Errorf("login page lacks %s", want)
		}
	}
}

func TestLoginAccountLogout(t *testing.T) {
	srv := server(t)
	b := newBrowser(t, srv)
	if resp, _ := b.do("GET", "/account", nil); resp.StatusCode != 303 || resp.Header.Get("Location") != "/login" {
		t.Fatalf("signed-out /account: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, body := b.do("POST", "/login", url.Values{"email": {DemoEmail}, "password": {"wrong"}})
	if resp.StatusCode != 200 || !strings.Contains(body, `id="login-error"`) || !strings.Contains(body, `value="demo@example.com"`) {
		t.Fatalf("wrong password: %d, error shown %v", resp.StatusCode, strings.Contains(body, "login-error"))
	}
	if resp, _ := b.do("GET", "/account", nil); resp.StatusCode != 303 {
		t.Fatalf("after a wrong password /account: %d", resp.StatusCode)
	}
	resp = b.login(DemoPassword)
	if resp.StatusCode != 303 || resp.Header.Get("Location") != "/account" {
		t.Fatalf("login: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	u, _ := url.Parse(srv.URL)
	old := b.c.Jar.Cookies(u)
	resp, body = b.do("GET", "/account", nil)
	if resp.StatusCode != 200 || !strings.Contains(body, DemoEmail) || !strings.Contains(body, "Welcome back") {
		t.Fatalf("account: %d, email shown %v, flash %v", resp.StatusCode, strings.Contains(body, DemoEmail), strings.Contains(body, "Welcome back"))
	}
	if _, body = b.do("GET", "/account", nil); strings.Contains(body, "Welcome back") {
		t.Error("the flash was shown twice")
	}
	resp, _ = b.do("POST", "/logout", url.Values{})
	if resp.StatusCode != 303 || resp.Header.Get("Location") != "/" {
		t.Fatalf("logout: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// The old cookie signs nobody in.
	replay := newBrowser(t, srv)
	replay.c.Jar.SetCookies(u, old)
	if resp, _ := replay.do("GET", "/account", nil); resp.StatusCode != 303 {
		t.Fatalf("old cookie after logout: %d", resp.StatusCode)
	}
}

// TestLoginWithToken: a client that sends neither Sec-Fetch-Site nor Origin
// signs in with the form's CSRF field, and is refused without it.
func TestLoginWithToken(t *testing.T) {
	b := newBrowser(t, server(t))
	_, page := b.do("GET", "/login", nil)
	m := tokenRe.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no token")
	}
	resp, _ := b.do("POST", "/login", url.Values{"email": {DemoEmail}, "password": {DemoPassword}}, "Sec-Fetch-Site", "")
	if resp.StatusCode != 403 {
		t.Fatalf("no headers, no token: %d", resp.StatusCode)
	}
	resp, _ = b.do("POST", "/login", url.Values{"email": {DemoEmail}, "password": {DemoPassword}, "csrf_token": {m[1]}}, "Sec-Fetch-Site", "")
	if resp.StatusCode != 303 {
		t.Fatalf("no headers, token: %d", resp.StatusCode)
	}
	// Signing in replaced the CSRF secret: the token taken before is
	// refused, one from a page after it works.
	resp, _ = b.do("POST", "/logout", url.Values{"csrf_token": {m[1]}}, "Sec-Fetch-Site", "")
	if resp.StatusCode != 403 {
		t.Fatalf("logout with the token taken before sign-in: %d, want 403", resp.StatusCode)
	}
	_, page = b.do("GET", "/account", nil)
	if m = tokenRe.FindStringSubmatch(page); m == nil {
		t.Fatal("no token on the account page")
	}
	resp, _ = b.do("POST", "/logout", url.Values{"csrf_token": {m[1]}}, "Sec-Fetch-Site", "")
	if resp.StatusCode != 303 {
		t.Fatalf("logout with a token taken after sign-in: %d", resp.StatusCode)
	}
}

var tokenRe = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

func TestCrossSiteRefused(t *testing.T) {
	b := newBrowser(t, server(t))
	b.login(DemoPassword)
	for _, site := range []string{"cross-site", "same-site"} {
		resp, body := b.do("POST", "/logout", url.Values{}, "Sec-Fetch-Site", site, "Origin", "http://127.0.0.1:1")
		if resp.StatusCode != 403 || !strings.Contains(body, "<h1>403") {
			t.Errorf("%s POST: %d", site, resp.StatusCode)
		}
	}
	if resp, _ := b.do("GET", "/account", nil); resp.StatusCode != 200 {
		t.Errorf("a refused logout signed out: %d", resp.StatusCode)
	}
}

func TestLanguages(t *testing.T) {
	b := newBrowser(t, server(t))
	for accept, want := range map[string][]string{
		"":                       {`<html lang="en">`, "Welcome"},
		"en-GB,en;q=0.9":         {`<html lang="en">`, "Welcome"},
		"fr-CA,fr;q=0.9,en;q=.5": {`<html lang="fr">`, "Bienvenue"},
		"de-DE,de;q=0.9":         {`<html lang="de">`, "Willkommen"},
		"ja,es;q=0.8":            {`<html lang="en">`, "Welcome"},
	} {
		_, body := b.do("GET", "/", nil, "Accept-Language", accept)
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("Accept-Language %q: page lacks %q", accept, w)
			}
		}
	}
	_, page := b.do("GET", "/contact?x=1", nil)
	m := regexp.MustCompile(`href="(/lang\?lang=fr[^"]*)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no French link")
	}
	resp, _ := b.do("GET", strings.ReplaceAll(m[1], "&amp;", "&"), nil)
	if resp.StatusCode != 303 || resp.Header.Get("Location") != "/contact?x=1" {
		t.Fatalf("switch from /contact?x=1: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if _, body := b.do("GET", "/", nil, "Accept-Language", "de"); !strings.Contains(body, `<html lang="fr">`) {
		t.Error("the chosen language does not stick over Accept-Language")
	}
}

func TestCSPNonce(t *testing.T) {
	b := newBrowser(t, server(t))
	resp, body := b.do("GET", "/csp", nil)
	csp := resp.Header.Get("Content-Security-Policy")
	m := regexp.MustCompile(`'nonce-([^']+)'`).FindStringSubmatch(csp)
	if m == nil {
		t.Fatalf("CSP %q has no nonce", csp)
	}
	// html/template escapes the nonce's base64 ("+" as "&#43;"); the
	// browser reads the attribute unescaped.
	attr := regexp.MustCompile(`<script nonce="([^"]+)">`).FindStringSubmatch(body)
	if attr == nil || html.UnescapeString(attr[1]) != m[1] {
		t.Errorf("the inline script does not carry the header's nonce %q: %v", m[1], attr)
	}
	if strings.Count(body, "<script") != 2 || !strings.Contains(body, "<script>document.getElementById(\"injected-status\")") {
		t.Error("the page lacks its script without a nonce")
	}
	_, body2 := b.do("GET", "/csp", nil)
	if strings.Contains(body2, m[1]) {
		t.Error("the nonce is reused across requests")
	}
}

func TestContactValidation(t *testing.T) {
	b := newBrowser(t, server(t))
	resp, body := b.do("POST", "/contact", url.Values{"name": {"Ada"}, "email": {"not-an-email"}, "message": {"short"}})
	if resp.StatusCode != 422 {
		t.Fatalf("invalid contact: %d", resp.StatusCode)
	}
	for _, want := range []string{`value="Ada"`, `value="not-an-email"`, ">short</textarea>", `id="error-email"`, `id="error-message"`, "flash-error", "at least 10 characters"} {
		if !strings.Contains(body, want) {
			t.Errorf("re-rendered form lacks %q", want)
		}
	}
	if strings.Contains(body, `id="error-name"`) {
		t.Error("a valid field is marked")
	}
	if _, body := b.do("GET", "/contact", nil); strings.Contains(body, "flash-error") {
		t.Error("the flash shown with the form is shown again")
	}
	resp, _ = b.do("POST", "/contact", url.Values{"name": {"Ada"}, "email": {"ada@example.com"}, "message": {"Hello there, Plinth."}})
	if resp.StatusCode != 303 {
		t.Fatalf("valid contact: %d", resp.StatusCode)
	}
	if _, body := b.do("GET", "/contact", nil); !strings.Contains(body, "Thank you, Ada") {
		t.Error("no success flash")
	}
}

func TestErrorPages(t *testing.T) {
	b := newBrowser(t, server(t))
	resp, body := b.do("GET", "/no/such/page", nil, "Accept-Language", "fr")
	if resp.StatusCode != 404 || !strings.Contains(body, "<h1>404") || !strings.Contains(body, `<html lang="fr">`) || !strings.Contains(body, resp.Header.Get("X-Request-Id")) {
		t.Errorf("HTML 404: %d %s", resp.StatusCode, body)
	}
	resp, body = b.do("GET", "/no/such/page", nil, "Accept", "application/json")
	if resp.StatusCode != 404 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") {
		t.Errorf("JSON 404: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}

// GET /hello answers plain text with the short set of security headers:
// the route bench/laravel/run.sh measures against gin and Laravel.
func TestHello(t *testing.T) {
	b := newBrowser(t, server(t))
	resp, body := b.do("GET", "/hello", nil)
	if resp.StatusCode != 200 || body != "Hello, World!" || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("GET /hello: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("GET /hello: no security headers or request ID: %v", resp.Header)
	}
}

// Every page carries a CSRF token in <meta name="csrf-token"> (as
// Laravel's layouts do, for scripts), and a signed-out visitor's token is
// good for a form post without a browser's Sec-Fetch-Site: the anonymous
// token of the benchmark's sign-in scenario.
func TestMetaCSRFToken(t *testing.T) {
	srv := server(t)
	b := newBrowser(t, srv)
	_, body := b.do("GET", "/", nil)
	m := regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)">`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("GET /: no csrf-token meta in %q", body)
	}
	form := url.Values{"csrf_token": {html.UnescapeString(m[1])}, "email": {DemoEmail}, "password": {DemoPassword}}
	resp, _ := b.do("POST", "/login", form, "Sec-Fetch-Site", "")
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST /login with the meta token, no Sec-Fetch-Site: %d, want 303", resp.StatusCode)
	}
	form.Set("csrf_token", "x"+form.Get("csrf_token")[1:])
	if resp, _ := newBrowser(t, srv).do("POST", "/login", form, "Sec-Fetch-Site", "", "Cookie", "csrf=forged"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("POST /login with a bad token: %d, want 403", resp.StatusCode)
	}
}
