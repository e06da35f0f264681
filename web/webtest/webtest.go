// Package webtest tests the browser flows of a Plinth web App with a
// plinthtest.Client: signing a user in without the form, reading and
// writing the browser's session, and its flash messages. Forms (their CSRF
// field, the Origin and Sec-Fetch-Site a browser sends) are
// plinthtest.Client.Form's; the locale of a request is its
// Accept-Language header (c.Get(path, "Accept-Language", "fr")), or, for
// every request, plinthtest.Config.Header.
//
// Each helper acts through the App's own *web.Sessions (and *web.Auth):
// it serves one request to a small App made of the Sessions middleware and
// the helper's handler, with the Client's cookies, so the session is read
// and written exactly as the App's handlers do, in any store, and the
// cookies it sets land in the Client's jar. Give the test the App's
// Sessions and Auth (a constructor that returns them beside the App).
package webtest

import (
	"net/http/httptest"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/plinthtest"
	"github.com/plinth-go/plinth/web"
)

// side is the path of the side requests: never a route of the App.
const side = "/_webtest"

// WithSession runs fn with the session of the Client's browser, as a
// handler of the App would: what fn puts is saved and the session cookie
// kept. An error from fn, or a store that fails, fails the test.
func WithSession(t testing.TB, c *plinthtest.Client, s *web.Sessions, fn func(c *plinth.Ctx, sess *web.Session) error) {
	t.Helper()
	if c == nil || s == nil || fn == nil {
		t.Fatalf("webtest.WithSession: the Client, the Sessions and the function are required")
		return
	}
	var ferr error
	ran := false
	app := plinth.Bare()
	app.Use(s.Middleware())
	app.Get(side, func(pc *plinth.Ctx) error {
		ran = true
		sess, err := web.SessionOf(pc)
		if err != nil {
			ferr = err
			return err
		}
		ferr = fn(pc, sess)
		if ferr != nil {
			return ferr
		}
		return pc.NoContent(204)
	})
	r := c.Through(app, httptest.NewRequest("GET", side, nil))
	switch {
	case !ran:
		t.Fatalf("webtest: the session could not be used: status %d %s", r.Code(), r.Body())
	case ferr != nil:
		t.Fatalf("webtest: %v", ferr)
	}
}

// SignIn signs the user with ID id in, in the Client's browser, without
// the sign-in form: auth.Login runs on the browser's session (renewed, the
// CSRF secret replaced, as after a real sign-in). The App then sees the
// user in its next requests.
func SignIn[U any](t testing.TB, c *plinthtest.Client, s *web.Sessions, auth *web.Auth[U], id string) {
	t.Helper()
	if auth == nil {
		t.Fatalf("webtest.SignIn: the Auth is nil")
		return
	}
	WithSession(t, c, s, func(pc *plinth.Ctx, _ *web.Session) error { return auth.Login(pc, id) })
}

// SignOut signs the Client's browser out (auth.Logout).
func SignOut[U any](t testing.TB, c *plinthtest.Client, s *web.Sessions, auth *web.Auth[U]) {
	t.Helper()
	if auth == nil {
		t.Fatalf("webtest.SignOut: the Auth is nil")
		return
	}
	WithSession(t, c, s, func(pc *plinth.Ctx, _ *web.Session) error { return auth.Logout(pc) })
}

// Session is a copy of a browser session's values, for assertions.
type Session struct {
	t      testing.TB
	keys   []string
	values map[string]any
	isNew  bool
}

// SessionOf reads the session of the Client's browser, without changing
// it (the flashes stay: see Flashes).
func SessionOf(t testing.TB, c *plinthtest.Client, s *web.Sessions) *Session {
	t.Helper()
	out := &Session{t: t, values: map[string]any{}}
	WithSession(t, c, s, func(_ *plinth.Ctx, sess *web.Session) error {
		out.isNew = sess.IsNew()
		out.keys = sess.Keys()
		for _, k := range out.keys {
			v, _ := web.Get[any](sess, k)
			out.values[k] = v
		}
		return nil
	})
	return out
}

// Keys returns the session's keys.
func (s *Session) Keys() []string { return s.keys }

// Value returns the value of key as the session decodes it into an any
// (a JSON-like value for a stored struct), and whether it is set.
func (s *Session) Value(key string) (any, bool) {
	v, ok := s.values[key]
	return v, ok
}

// HasKey asserts that the session has key.
func (s *Session) HasKey(key string) *Session {
	s.t.Helper()
	if _, ok := s.values[key]; !ok {
		s.t.Fatalf("webtest: the session has no %q; its keys: %q", key, s.keys)
	}
	return s
}

// NoKey asserts that the session lacks key.
func (s *Session) NoKey(key string) *Session {
	s.t.Helper()
	if v, ok := s.values[key]; ok {
		s.t.Fatalf("webtest: the session has %q = %v, want none", key, v)
	}
	return s
}

// Flashes returns the flash messages pending in the Client's browser
// session, without taking them (the next page still shows them).
func Flashes(t testing.TB, c *plinthtest.Client, s *web.Sessions) []web.Flash {
	t.Helper()
	var out []web.Flash
	WithSession(t, c, s, func(pc *plinth.Ctx, sess *web.Session) error {
		out = web.FlashesOf(pc)
		for _, f := range out { // put them back
			if err := web.AddFlash(pc, f.Kind, f.Message); err != nil {
				return err
			}
		}
		return nil
	})
	return out
}

// HasFlash asserts that a flash of kind whose message is message is
// pending ("" matches any kind), listing the pending ones when not.
func HasFlash(t testing.TB, c *plinthtest.Client, s *web.Sessions, kind, message string) {
	t.Helper()
	list := Flashes(t, c, s)
	for _, f := range list {
		if (kind == "" || f.Kind == kind) && f.Message == message {
			return
		}
	}
	t.Fatalf("webtest: no %s flash %q; pending: %v", kind, message, list)
}
