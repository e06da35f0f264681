package plinth_test

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
)

// quiet discards the logs of tests that provoke errors on purpose.
var quiet = slog.New(slog.DiscardHandler)

func TestCtxResponses(t *testing.T) {
	type account struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
	}
	app := plinth.Bare()
	app.Logger = quiet
	app.Get("/json", func(c *plinth.Ctx) error { return c.JSON(201, &account{ID: 1, Name: "<a>"}) })
	app.Get("/badjson", func(c *plinth.Ctx) error { return c.JSON(200, func() {}) })
	app.Get("/html", func(c *plinth.Ctx) error { return c.HTML(200, "<p>hi</p>") })
	app.Get("/bytes", func(c *plinth.Ctx) error { return c.Bytes(202, "image/png", []byte{1, 2}) })
	app.Get("/none", func(c *plinth.Ctx) error { return c.NoContent(204) })
	app.Get("/status", func(c *plinth.Ctx) error {
		before := c.Written()
		_ = c.Text(200, "x")
		if before || !c.Written() || c.Status() != 200 {
			return errors.New("status tracking is wrong")
		}
		return nil
	})
	for _, tc := range []struct {
		path, ctype, body string
		code              int
	}{
		{"/json", "application/json", "{\"id\":1,\"name\":\"\\u003ca\\u003e\"}\n", 201},
		{"/badjson", "application/problem+json", "", 500},
		{"/html", "text/html; charset=utf-8", "<p>hi</p>", 200},
		{"/bytes", "image/png", "\x01\x02", 202},
		{"/none", "", "", 204},
		{"/status", "text/plain; charset=utf-8", "x", 200},
	} {
		rec := serve(app, "GET", tc.path)
		if rec.Code != tc.code || rec.Header().Get("Content-Type") != tc.ctype || (tc.body != "" && rec.Body.String() != tc.body) {
			t.Errorf("%s: %d %q %q, want %d %q %q", tc.path, rec.Code, rec.Header().Get("Content-Type"), rec.Body, tc.code, tc.ctype, tc.body)
		}
	}
}

func TestCtxQuery(t *testing.T) {
	app := plinth.Bare()
	app.Get("/q", func(c *plinth.Ctx) error {
		return c.Text(200, strings.Join([]string{c.Query("a"), c.Query("b c"), c.Query("missing"), c.Query("bad"), c.Query("e"), c.QueryValues().Get("a")}, "|"))
	})
	rec := serve(app, "GET", "/q?a=1&a=2&b+c=x%20y&bad=%zz&bad=ok&e=&x;y=1")
	if want := "1|x y||ok||1"; rec.Body.String() != want {
		t.Fatalf("got %q, want %q", rec.Body, want)
	}
}

// TestCtxRedirect: a local target is sent; an off-site or header-splitting
// target, which comes from the request, is a 400 and logs nothing at error
// level; a non-3xx code is the code's mistake, a 500.
func TestCtxRedirect(t *testing.T) {
	app := plinth.Bare()
	var logs strings.Builder
	app.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	app.Get("/r", func(c *plinth.Ctx) error { return c.Redirect(303, c.Query("to")) })
	app.Get("/ext", func(c *plinth.Ctx) error { return c.RedirectExternal(302, "https://example.com/x") })
	app.Get("/code", func(c *plinth.Ctx) error { return c.Redirect(200, "/x") })
	for _, tc := range []struct {
		to   string
		code int
	}{
		{"/login?next=%2F", 303},
		{"../up", 303},
		{"?page=2", 303},
		{"//evil.example", 400},
		{`/\evil.example`, 400},
		{`\\evil.example`, 400},
		{"https://evil.example", 400},
		{"javascript:alert(1)", 400},
		{"/ok\r\nSet-Cookie: x=1", 400},
	} {
		req := httptest.NewRequest("GET", "/r", nil)
		req.URL.RawQuery = "to=" + url.QueryEscape(tc.to)
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		if rec.Code != tc.code {
			t.Errorf("Redirect(%q): %d, want %d", tc.to, rec.Code, tc.code)
		}
		if tc.code == 303 && rec.Header().Get("Location") != tc.to {
			t.Errorf("Redirect(%q): Location %q", tc.to, rec.Header().Get("Location"))
		}
	}
	if rec := serve(app, "GET", "/ext"); rec.Code != 302 || rec.Header().Get("Location") != "https://example.com/x" {
		t.Errorf("RedirectExternal: %d %q", rec.Code, rec.Header().Get("Location"))
	}
	if rec := serve(app, "GET", "/code"); rec.Code != 500 {
		t.Errorf("Redirect with 200: %d", rec.Code)
	}
	if strings.Contains(logs.String(), "/r") {
		t.Errorf("a refused redirect target was logged:\n%s", logs.String())
	}
}

func TestCtxCookies(t *testing.T) {
	app := plinth.Bare()
	app.Get("/c", func(c *plinth.Ctx) error {
		ck, err := c.Cookie("session")
		if err != nil {
			return plinth.BadRequest("no session")
		}
		c.SetCookie(&http.Cookie{Name: "seen", Value: ck.Value, HttpOnly: true})
		return c.NoContent(204)
	})
	req := httptest.NewRequest("GET", "/c", nil)
	req.AddCookie(&http.Cookie{Name: "session", Value: "abc"})
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Code != 204 || rec.Header().Get("Set-Cookie") != "seen=abc; HttpOnly" {
		t.Fatalf("%d %q", rec.Code, rec.Header().Get("Set-Cookie"))
	}
	if rec := serve(app, "GET", "/c"); rec.Code != 400 {
		t.Fatalf("without cookie: %d", rec.Code)
	}
}

func TestWriterPassesThroughFlushAndController(t *testing.T) {
	app := plinth.Bare()
	app.Get("/stream", func(c *plinth.Ctx) error {
		_, _ = c.Writer().Write([]byte("a"))
		if err := http.NewResponseController(c.Writer()).Flush(); err != nil {
			return err
		}
		c.Writer().(http.Flusher).Flush()
		return nil
	})
	rec := serve(app, "GET", "/stream")
	if !rec.Flushed || rec.Body.String() != "a" {
		t.Fatalf("flushed=%v body=%q", rec.Flushed, rec.Body)
	}
}

// A response helper called after the response started writes nothing and
// returns ErrResponseStarted, which the handler's error path logs once:
// before, a second c.JSON appended a second document to the first one's 200.
func TestCtxSecondResponseRefused(t *testing.T) {
	seconds := map[string]func(c *plinth.Ctx) error{
		"JSON":             func(c *plinth.Ctx) error { return c.JSON(201, map[string]string{"b": "2"}) },
		"Text":             func(c *plinth.Ctx) error { return c.Text(500, "second") },
		"HTML":             func(c *plinth.Ctx) error { return c.HTML(200, "<p>second</p>") },
		"Bytes":            func(c *plinth.Ctx) error { return c.Bytes(200, "image/png", []byte("second")) },
		"NoContent":        func(c *plinth.Ctx) error { return c.NoContent(204) },
		"Redirect":         func(c *plinth.Ctx) error { return c.Redirect(303, "/second") },
		"RedirectExternal": func(c *plinth.Ctx) error { return c.RedirectExternal(302, "https://second.example/") },
	}
	for name, second := range seconds {
		t.Run(name, func(t *testing.T) {
			var logs bytes.Buffer
			app := plinth.New()
			app.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			var got error
			app.Get("/twice", func(c *plinth.Ctx) error {
				if err := c.JSON(200, map[string]string{"a": "1"}); err != nil {
					return err
				}
				got = second(c)
				return got
			})
			rec := serve(app, "GET", "/twice")
			if !errors.Is(got, plinth.ErrResponseStarted) {
				t.Errorf("second call returned %v, want ErrResponseStarted", got)
			}
			if rec.Code != 200 || rec.Body.String() != "{\"a\":\"1\"}\n" || rec.Header().Get("Location") != "" ||
				rec.Header().Get("Content-Type") != "application/json" {
				t.Errorf("response %d %v %q, want the first one alone", rec.Code, rec.Header(), rec.Body)
			}
			if n := strings.Count(logs.String(), "handler error after the response started"); n != 1 ||
				!strings.Contains(logs.String(), plinth.ErrResponseStarted.Error()) {
				t.Errorf("want the error logged once, got %d:\n%s", n, logs.String())
			}
		})
	}
	t.Run("WriteError", func(t *testing.T) {
		var logs bytes.Buffer
		app := plinth.New()
		app.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		app.Get("/twice", func(c *plinth.Ctx) error {
			_ = c.Text(200, "first")
			c.WriteError(plinth.NotFound("second"))
			return nil
		})
		rec := serve(app, "GET", "/twice")
		if rec.Code != 200 || rec.Body.String() != "first" {
			t.Errorf("response %d %q, want the first one alone", rec.Code, rec.Body)
		}
		if n := strings.Count(logs.String(), "handler error after the response started"); n != 1 {
			t.Errorf("want the error logged once, got %d:\n%s", n, logs.String())
		}
	})
	t.Run("RecorderThenSend", func(t *testing.T) {
		// A middleware that records the handler's response and sends it
		// itself: the response had not started, so its helper call works.
		app := plinth.Bare()
		app.Use(func(next plinth.HandlerFunc) plinth.HandlerFunc {
			return func(c *plinth.Ctx) error {
				w := c.Writer()
				rec := httptest.NewRecorder()
				c.SetWriter(rec)
				err := next(c)
				c.SetWriter(w)
				if err != nil {
					return err
				}
				return c.Bytes(rec.Code, rec.Header().Get("Content-Type"), rec.Body.Bytes())
			}
		})
		app.Get("/rec", func(c *plinth.Ctx) error { return c.Text(202, "recorded") })
		if rec := serve(app, "GET", "/rec"); rec.Code != 202 || rec.Body.String() != "recorded" {
			t.Errorf("%d %q", rec.Code, rec.Body)
		}
	})
}
