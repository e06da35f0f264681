package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
	"github.com/plinth-go/plinth/web"
)

// nopWriter is a ResponseWriter that keeps nothing, so that only the
// framework's allocations are counted.
type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header               { return w.h }
func (w *nopWriter) Write(b []byte) (int, error)       { return len(b), nil }
func (w *nopWriter) WriteHeader(int)                   {}
func (w *nopWriter) WriteString(s string) (int, error) { return len(s), nil } // as net/http's writer

func allocs(t *testing.T, h http.Handler, r *http.Request) float64 {
	t.Helper()
	w := &nopWriter{h: http.Header{}}
	return testing.AllocsPerRun(200, func() {
		clear(w.h)
		h.ServeHTTP(w, r)
	})
}

// TestUntouchedSessionAllocs: a request that never touches its session
// allocates nothing more than the same App without sessions, on New and on
// Bare.
func TestUntouchedSessionAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts differ under the race detector")
	}
	for name, mk := range map[string]func() *plinth.App{"New": plinth.New, "Bare": plinth.Bare} {
		plain := mk()
		plain.Get("/", func(c *plinth.Ctx) error { return c.Text(200, "hi") })
		withSessions := mk()
		s, err := web.NewSessions(web.SessionsConfig{})
		if err != nil {
			t.Fatal(err)
		}
		s.Attach(withSessions)
		withSessions.Use(web.CSRF(web.CSRFConfig{}))
		auth := web.NewAuth(web.AuthConfig[string]{LoadUser: func(_ context.Context, id string) (string, error) { return id, nil }})
		auth.Attach(withSessions)
		withSessions.Get("/", func(c *plinth.Ctx) error { return c.Text(200, "hi") })
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("X-Request-Id", "01JABCDEFGHJKMNPQRSTVWXYZ0") // no generated ID: count only the layer under test
		r.Header.Set("Cookie", "session="+"A0123456789012345678901234567890123456789ab")
		base, got := allocs(t, plain, r), allocs(t, withSessions, r)
		if got != base {
			t.Errorf("%s: untouched session request allocates %v, without sessions %v: want no more", name, got, base)
		}
	}
}

// TestSessionReadAllocs: reading one string from a memory-store session
// allocates the string and nothing else beyond the App's own.
func TestSessionReadAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts differ under the race detector")
	}
	app := plinth.Bare()
	s, err := web.NewSessions(web.SessionsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	s.Attach(app)
	app.Get("/put", func(c *plinth.Ctx) error {
		sess, err := web.SessionOf(c)
		if err != nil {
			return err
		}
		sess.Put("name", "ada")
		return c.Text(200, "ok")
	})
	var got string
	app.Get("/get", func(c *plinth.Ctx) error {
		sess, err := web.SessionOf(c)
		if err != nil {
			return err
		}
		got, _ = web.Get[string](sess, "name")
		return c.Text(200, got)
	})
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest("GET", "/put", nil))
	r := httptest.NewRequest("GET", "/get", nil)
	r.Header.Set("Cookie", rec.Header().Get("Set-Cookie"))
	n := allocs(t, app, r)
	if got != "ada" {
		t.Fatalf("read %q", got)
	}
	if n > 1 {
		t.Errorf("session read allocates %v, budget 1 (the string)", n)
	}
}
