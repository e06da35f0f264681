package web_test

// Boundary tests of Auth from mutation testing: a user
// that no longer exists signs the session out (once), a LoadUser failure
// fails the request, a session that cannot be had is an error and not
// "nobody", an empty ID is nobody, and where RequireUser sends a browser.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/web"
)

// bndClient keeps the cookies an App sets, as a browser does.
type bndClient struct {
	h       http.Handler
	cookies map[string]string
}

func (cl *bndClient) do(method, target string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	for k, v := range cl.cookies {
		r.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	w := httptest.NewRecorder()
	cl.h.ServeHTTP(w, r)
	for _, c := range w.Result().Cookies() {
		if c.MaxAge < 0 || c.Value == "" {
			delete(cl.cookies, c.Name)
		} else {
			cl.cookies[c.Name] = c.Value
		}
	}
	return w
}

type bndAuthApp struct {
	cl    *bndClient
	loads *atomic.Int32
	fail  *atomic.Value // error LoadUser returns, when set
}

// bndAuthed returns an App with Sessions and an Auth of cfg, whose LoadUser
// counts its calls and returns the ID as the user (or the error in fail):
// POST /login?id=X signs X in, GET /me and GET /twice show the user (twice
// reads it twice), GET /account and POST /account need a user.
func bndAuthed(t *testing.T, cfg web.AuthConfig[string]) bndAuthApp {
	t.Helper()
	s, err := web.NewSessions(web.SessionsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var loads atomic.Int32
	var fail atomic.Value
	cfg.LoadUser = func(_ context.Context, id string) (string, error) {
		loads.Add(1)
		if err, ok := fail.Load().(error); ok && err != nil {
			return "", err
		}
		return "user-" + id, nil
	}
	auth := web.NewAuth(cfg)
	app := plinth.New()
	s.Attach(app)
	auth.Attach(app)
	app.Post("/login", func(c *plinth.Ctx) error {
		if err := auth.Login(c, c.Request().URL.Query().Get("id")); err != nil {
			return err
		}
		return c.Text(200, "ok")
	})
	show := func(c *plinth.Ctx) error {
		u, ok, err := auth.User(c)
		if err != nil {
			return err
		}
		return c.Text(200, fmt.Sprintf("%q %v %v", u, ok, web.UserOf(c)))
	}
	app.Get("/me", show)
	app.Get("/twice", func(c *plinth.Ctx) error {
		if _, _, err := auth.User(c); err != nil {
			return err
		}
		return show(c)
	})
	need := func(c *plinth.Ctx) error { return c.Text(200, "secret") }
	app.With(auth.RequireUser()).Get("/account", need)
	app.With(auth.RequireUser()).Post("/account", need)
	return bndAuthApp{cl: &bndClient{h: app, cookies: map[string]string{}}, loads: &loads, fail: &fail}
}

// A user that no longer exists (ErrNoUser, wrapped) signs the session out:
// nobody on this request, and the next one does not ask LoadUser again.
func TestAuthGoneUserSignsOut(t *testing.T) {
	a := bndAuthed(t, web.AuthConfig[string]{})
	a.cl.do("POST", "/login?id=7")
	if w := a.cl.do("GET", "/me"); w.Body.String() != `"user-7" true user-7` {
		t.Fatalf("signed in: %q", w.Body.String())
	}
	a.fail.Store(fmt.Errorf("deleted: %w", web.ErrNoUser))
	if w := a.cl.do("GET", "/me"); w.Code != 200 || w.Body.String() != `"" false <nil>` {
		t.Errorf("a gone user: %d %q, want nobody", w.Code, w.Body.String())
	}
	loads := a.loads.Load()
	if w := a.cl.do("GET", "/me"); w.Body.String() != `"" false <nil>` {
		t.Errorf("after: %q", w.Body.String())
	}
	if a.loads.Load() != loads {
		t.Errorf("LoadUser asked again for a user the session no longer names (%d calls, then %d)", loads, a.loads.Load())
	}
}

// Another LoadUser error fails the request (500), and RequireUser does not
// let it through.
func TestAuthLoadUserErrorFails(t *testing.T) {
	a := bndAuthed(t, web.AuthConfig[string]{})
	a.cl.do("POST", "/login?id=7")
	a.fail.Store(errors.New("database down"))
	if w := a.cl.do("GET", "/me"); w.Code != http.StatusInternalServerError {
		t.Errorf("/me with LoadUser failing: %d %q, want 500", w.Code, w.Body.String())
	}
	if w := a.cl.do("GET", "/account"); w.Code != http.StatusInternalServerError || strings.Contains(w.Body.String(), "secret") {
		t.Errorf("/account with LoadUser failing: %d %q, want 500", w.Code, w.Body.String())
	}
}

// The user is loaded once per request, however often it is asked for.
func TestAuthUserLoadedOnce(t *testing.T) {
	a := bndAuthed(t, web.AuthConfig[string]{})
	a.cl.do("POST", "/login?id=7")
	before := a.loads.Load()
	if w := a.cl.do("GET", "/twice"); w.Body.String() != `"user-7" true user-7` {
		t.Fatalf("%q", w.Body.String())
	}
	if got := a.loads.Load() - before; got != 1 {
		t.Errorf("LoadUser called %d times in one request, want 1", got)
	}
}

// An empty ID in the session is nobody: LoadUser is not asked.
func TestAuthEmptyIDIsNobody(t *testing.T) {
	a := bndAuthed(t, web.AuthConfig[string]{})
	a.cl.do("POST", "/login?id=")
	before := a.loads.Load()
	if w := a.cl.do("GET", "/me"); w.Body.String() != `"" false <nil>` {
		t.Errorf("empty ID: %q", w.Body.String())
	}
	if w := a.cl.do("GET", "/account"); w.Code != http.StatusUnauthorized {
		t.Errorf("/account with an empty ID: %d, want 401", w.Code)
	}
	if a.loads.Load() != before {
		t.Errorf("LoadUser asked for an empty ID")
	}
}

// Without the Sessions middleware, User is an error, not "nobody", and
// Login and Logout fail.
func TestAuthWithoutSessionsIsAnError(t *testing.T) {
	auth := web.NewAuth(web.AuthConfig[string]{LoadUser: func(context.Context, string) (string, error) { return "u", nil }})
	app := plinth.New()
	auth.Attach(app)
	var userErr, idErr, loginErr, logoutErr error
	app.Get("/", func(c *plinth.Ctx) error {
		_, _, userErr = auth.User(c)
		_, _, idErr = auth.UserID(c)
		loginErr = auth.Login(c, "1")
		logoutErr = auth.Logout(c)
		return c.Text(200, "done")
	})
	w := httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if userErr == nil || idErr == nil || loginErr == nil || logoutErr == nil {
		t.Errorf("without Sessions: User %v, UserID %v, Login %v, Logout %v: want errors", userErr, idErr, loginErr, logoutErr)
	}
	app2 := plinth.New()
	app2.With(auth.RequireUser()).Get("/", func(c *plinth.Ctx) error { return c.Text(200, "secret") })
	w = httptest.NewRecorder()
	app2.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code == 200 {
		t.Errorf("RequireUser without Sessions let the request through")
	}
}

// UserOf without an Auth installed is nil.
func TestAuthUserOfWithoutAuth(t *testing.T) {
	app := plinth.New()
	var got any = "unset"
	app.Get("/", func(c *plinth.Ctx) error { got = web.UserOf(c); return nil })
	app.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if got != nil {
		t.Errorf("UserOf without Auth: %v", got)
	}
}

// Where RequireUser sends a browser: LoginPath, with the page in NextParam
// for a GET only, and exactly LoginPath without NextParam; an API client
// gets 401.
func TestAuthRequireUserTarget(t *testing.T) {
	html := []string{"Accept", "text/html"}
	for _, c := range []struct {
		name           string
		cfg            web.AuthConfig[string]
		method, target string
		want           string
	}{
		{"default", web.AuthConfig[string]{}, "GET", "/account?tab=1", "/login"},
		{"LoginPath", web.AuthConfig[string]{LoginPath: "/signin"}, "GET", "/account", "/signin"},
		{"NextParam GET", web.AuthConfig[string]{NextParam: "next"}, "GET", "/account?tab=1", "/login?next=%2Faccount%3Ftab%3D1"},
		{"NextParam POST", web.AuthConfig[string]{NextParam: "next"}, "POST", "/account", "/login"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := bndAuthed(t, c.cfg)
			w := a.cl.do(c.method, c.target, html...)
			if w.Code != http.StatusSeeOther || w.Header().Get("Location") != c.want {
				t.Errorf("%d Location %q, want 303 %q", w.Code, w.Header().Get("Location"), c.want)
			}
		})
	}
	a := bndAuthed(t, web.AuthConfig[string]{NextParam: "next"})
	if w := a.cl.do("GET", "/account", "Accept", "application/json"); w.Code != http.StatusUnauthorized {
		t.Errorf("API client: %d, want 401", w.Code)
	}
	a.cl.do("POST", "/login?id=1")
	if w := a.cl.do("GET", "/account", html...); w.Code != 200 || w.Body.String() != "secret" {
		t.Errorf("signed in: %d %q", w.Code, w.Body.String())
	}
}

// NewAuth without LoadUser panics.
func TestAuthNeedsLoadUser(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewAuth without LoadUser did not panic")
		}
	}()
	web.NewAuth(web.AuthConfig[string]{})
}
