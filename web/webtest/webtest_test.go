package webtest_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/plinthtest"
	"github.com/plinth-go/plinth/web"
	"github.com/plinth-go/plinth/web/webtest"
)

type user struct{ Name string }

// site is a small signed-in App: /me shows the user, /note adds a flash.
func site(t *testing.T) (*plinth.App, *web.Sessions, *web.Auth[*user]) {
	sessions, err := web.NewSessions(web.SessionsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	auth := web.NewAuth(web.AuthConfig[*user]{LoadUser: func(_ context.Context, id string) (*user, error) {
		if id != "1" {
			return nil, web.ErrNoUser
		}
		return &user{Name: "Ada"}, nil
	}})
	app := plinth.New()
	sessions.Attach(app)
	auth.Attach(app)
	app.With(auth.RequireUser()).Get("/me", func(c *plinth.Ctx) error {
		u, _, err := auth.User(c)
		if err != nil {
			return err
		}
		return c.Text(200, u.Name)
	})
	app.Get("/note", func(c *plinth.Ctx) error {
		if err := web.AddFlash(c, "info", "Saved."); err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, "/")
	})
	return app, sessions, auth
}

func TestSignInSessionFlash(t *testing.T) {
	app, sessions, auth := site(t)
	c := plinthtest.New(t, app, plinthtest.Config{})
	c.Get("/me", "Accept", "text/html").Redirect("/login")
	webtest.SignIn(t, c, sessions, auth, "1")
	c.Get("/me").Status(200).Contains("Ada")
	webtest.SessionOf(t, c, sessions).HasKey("_uid").NoKey("cart")

	c.Get("/note").Status(303)
	webtest.HasFlash(t, c, sessions, "info", "Saved.")
	webtest.HasFlash(t, c, sessions, "", "Saved.") // still pending: inspecting keeps them

	webtest.WithSession(t, c, sessions, func(_ *plinth.Ctx, sess *web.Session) error {
		sess.Put("cart", 3)
		return nil
	})
	if v, ok := webtest.SessionOf(t, c, sessions).Value("cart"); !ok || fmt.Sprint(v) != "3" {
		t.Errorf("cart %v %v", v, ok)
	}
	webtest.SignOut(t, c, sessions, auth)
	c.Get("/me", "Accept", "application/json").Status(401)
}

// fakeTB records a failure instead of failing the test.
type fakeTB struct {
	testing.TB
	msgs []string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
	runtime.Goexit()
}

func failure(fn func(tb testing.TB)) string {
	f := &fakeTB{}
	done := make(chan struct{})
	go func() { defer close(done); fn(f) }()
	<-done
	return strings.Join(f.msgs, "\n")
}

func TestFailures(t *testing.T) {
	app, sessions, auth := site(t)
	c := plinthtest.New(t, app, plinthtest.Config{})
	for _, tc := range []struct {
		fn   func(tb testing.TB)
		want string
	}{
		{func(tb testing.TB) { webtest.HasFlash(tb, c, sessions, "error", "Nope.") }, `no error flash "Nope."; pending: []`},
		{func(tb testing.TB) { webtest.SessionOf(tb, c, sessions).HasKey("_uid") }, `the session has no "_uid"`},
		{func(tb testing.TB) { webtest.SignIn[*user](tb, c, sessions, nil, "1") }, "the Auth is nil"},
		{func(tb testing.TB) { webtest.SignIn(tb, c, nil, auth, "1") }, "the Sessions"},
		{func(tb testing.TB) {
			webtest.WithSession(tb, c, sessions, func(*plinth.Ctx, *web.Session) error { return fmt.Errorf("boom") })
		}, "webtest: boom"},
	} {
		if got := failure(tc.fn); !strings.Contains(got, tc.want) {
			t.Errorf("failure %q, want one containing %q", got, tc.want)
		}
	}
}

// A form whose CSRF field the test removes is refused by web.CSRF, as a
// user of Form.Remove expects: the submission carries no proof of origin
// either (plinthtest leaves out Origin and Sec-Fetch-*), so the middleware
// takes its token step. The whole form passes.
func TestFormWithoutCSRFTokenRefused(t *testing.T) {
	sessions, err := web.NewSessions(web.SessionsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	app := plinth.New()
	sessions.Attach(app)
	app.Use(web.CSRF(web.CSRFConfig{}))
	app.Get("/form", func(c *plinth.Ctx) error {
		field, err := web.CSRFField(c)
		if err != nil {
			return err
		}
		return c.HTML(200, `<form method="post" action="/form">`+string(field)+`<input name="q"></form>`)
	})
	app.Post("/form", func(c *plinth.Ctx) error { return c.Text(200, "accepted") })
	c := plinthtest.New(t, app, plinthtest.Config{})
	c.Form("/form", "form").Set("q", "x").Submit().Status(200).Contains("accepted")
	c.Form("/form", "form").Set("q", "x").Remove(web.DefaultCSRFField).Submit().Problem(403, "").HasDetail("CSRF token")
	t.Run("in a subtest", func(t *testing.T) {
		c.In(t).Form("/form", "form").Remove(web.DefaultCSRFField).Submit().Status(403)
	})
}
