package web_test

import (
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
	s, err := web.NewSessions(web.SessionsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	app := plinth.New()
	s.Attach(app)
	app.Use(web.CSRF(web.CSRFConfig{TrustedOrigins: []string{"https://partner.example"}}))
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
		{"no headers, session cookie, no token", withCookie(), "", nil, 403},
		{"empty headers, session cookie, no token", withCookie(), "", []string{"Sec-Fetch-Site", "", "Origin", ""}, 403},
		{"no headers, session cookie, good token", withCookie(), form, nil, 200},
		{"no headers, session cookie, token in header", withCookie(), "", []string{"X-CSRF-Token", token}, 200},
		{"no headers, session cookie, bad token", withCookie(), url.Values{"csrf_token": {strings.Repeat("A", len(token))}}.Encode(), nil, 403},
		{"no headers, session cookie, truncated token", withCookie(), url.Values{"csrf_token": {token[:20]}}.Encode(), nil, 403},
		{"no headers, no cookie (API client)", newClient(t, app), "", nil, 200},
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
	// A token of another session is refused.
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

func TestCSRFBadTrustedOrigin(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a bad trusted origin did not panic")
		}
	}()
	web.CSRF(web.CSRFConfig{TrustedOrigins: []string{"https://x.example/path"}})
}
