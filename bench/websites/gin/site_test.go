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

	"github.com/plinth-go/plinth"
)

func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	h, err := NewHandler([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func newClient(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func get(t *testing.T, c *http.Client, u string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

var metaToken = regexp.MustCompile(`<meta name="csrf-token" content="([^"]*)"`)

func token(t *testing.T, body string) string {
	t.Helper()
	m := metaToken.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no csrf-token meta in %q", body)
	}
	return html.UnescapeString(m[1])
}

func postLogin(t *testing.T, c *http.Client, base, tok, password string) (*http.Response, string) {
	t.Helper()
	form := url.Values{"email": {DemoEmail}, "password": {password}}
	if tok != "" {
		form.Set("csrf_token", tok)
	}
	resp, err := c.PostForm(base+"/login", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// The same security headers as Plinth's default layer: helmet's set on
// pages and redirects (HSTS only over HTTPS), the short set on text.
func TestSecurityHeadersMatchPlinth(t *testing.T) {
	srv := newServer(t)
	c := newClient(t)
	resp, body := get(t, c, srv.URL+"/hello")
	if resp.StatusCode != 200 || body != "Hello, World!" || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("GET /hello: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	for k, v := range shortHeaders {
		if got := resp.Header.Get(k); got != v[0] {
			t.Errorf("GET /hello: %s = %q, want %q", k, got, v[0])
		}
	}
	if resp.Header.Get("X-Frame-Options") != "" || len(resp.Header.Get("X-Request-Id")) != 26 {
		t.Errorf("GET /hello: X-Frame-Options %q (want none on text), X-Request-Id %q", resp.Header.Get("X-Frame-Options"), resp.Header.Get("X-Request-Id"))
	}
	resp, _ = get(t, c, srv.URL+"/")
	for k, v := range plinth.HelmetHeaders() {
		if k == "Strict-Transport-Security" {
			continue
		}
		if got := resp.Header.Get(k); got != v {
			t.Errorf("GET /: %s = %q, want Plinth's %q", k, got, v)
		}
	}
}

func TestLocale(t *testing.T) {
	srv := newServer(t)
	c := newClient(t)
	for _, tc := range []struct{ path, accept, want string }{
		{"/", "", `<html lang="en">`},
		{"/", "fr-CH, fr;q=0.9", `<html lang="fr">`},
		{"/?lang=de", "fr", `<html lang="de">`},
	} {
		_, body := get(t, c, srv.URL+tc.path, "Accept-Language", tc.accept)
		if !strings.Contains(body, tc.want) {
			t.Errorf("GET %s (Accept-Language %q): no %s", tc.path, tc.accept, tc.want)
		}
	}
}

func TestSignIn(t *testing.T) {
	srv := newServer(t)
	c := newClient(t)
	if resp, _ := get(t, c, srv.URL+"/account"); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET /account signed out: %d, want 401", resp.StatusCode)
	}
	_, body := get(t, c, srv.URL+"/")
	if !strings.Contains(body, `<p id="who">You are not signed in.</p>`) {
		t.Fatalf("GET / signed out: %q", body)
	}
	tok := token(t, body)
	if resp, _ := postLogin(t, c, srv.URL, "", DemoPassword); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("POST /login without a token: %d, want 403", resp.StatusCode)
	}
	if resp, body := postLogin(t, c, srv.URL, tok, "wrong"); resp.StatusCode != 200 || !strings.Contains(body, "Wrong email or password.") {
		t.Fatalf("POST /login, wrong password: %d %q", resp.StatusCode, body)
	}
	before := c.Jar.Cookies(mustURL(t, srv.URL))
	resp, _ := postLogin(t, c, srv.URL, tok, DemoPassword)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/account" {
		t.Fatalf("POST /login: %d to %q, want 303 to /account", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp.Header.Get("X-Frame-Options") != "SAMEORIGIN" {
		t.Errorf("the redirect lacks the document headers")
	}
	after := c.Jar.Cookies(mustURL(t, srv.URL))
	if cookie(before, "session") == cookie(after, "session") || cookie(after, "session") == "" {
		t.Errorf("the session ID was not renewed at sign-in")
	}
	resp, body = get(t, c, srv.URL+"/account")
	if resp.StatusCode != 200 || !strings.Contains(body, `<dd id="email">demo@example.com</dd>`) ||
		!strings.Contains(body, "Welcome back, Demo.") {
		t.Fatalf("GET /account: %d %q", resp.StatusCode, body)
	}
	if _, body = get(t, c, srv.URL+"/account"); strings.Contains(body, "Welcome back") {
		t.Errorf("the flash showed twice")
	}
	if _, body = get(t, c, srv.URL+"/"); !strings.Contains(body, "You are signed in as demo@example.com.") {
		t.Errorf("GET / signed in: %q", body)
	}
}

// Five failed attempts a minute per client and account, as Plinth's
// Auth.Throttle; a success gives its attempt back.
func TestThrottle(t *testing.T) {
	th := newThrottle(5, 60e9)
	for i := range 5 {
		if !th.take("k") {
			t.Fatalf("attempt %d refused", i+1)
		}
	}
	if th.take("k") {
		t.Fatal("sixth attempt allowed")
	}
	th.refund("k")
	if !th.take("k") || !th.take("other") {
		t.Fatal("a refunded attempt was not given back, or keys share a bucket")
	}
}

func TestPasswordHash(t *testing.T) {
	h, err := hashPassword("secret")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Errorf("hash %q: not argon2id at Plinth's cost", h)
	}
	if !checkPassword(h, "secret") || checkPassword(h, "Secret") || checkPassword("", "") || checkPassword("$argon2id$bad", "secret") {
		t.Error("checkPassword accepts a wrong password or a bad hash, or refuses the right one")
	}
}

func TestRequestIDsDiffer(t *testing.T) {
	a, b := newRequestID(), newRequestID()
	if a == b || len(a) != 26 || strings.Trim(a, crockford) != "" {
		t.Errorf("request IDs %q %q", a, b)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func cookie(cs []*http.Cookie, name string) string {
	for _, c := range cs {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}
