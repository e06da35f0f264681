package plinth

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A handler that lifts its deadline lives past the handler timeout: its
// context keeps no deadline and is not cancelled, its writes go through,
// and the response is whole (no 503, no abort). Lifting twice is harmless.
func TestLiftDeadline(t *testing.T) {
	t.Parallel()
	app := New()
	app.Config = testConfig()
	app.HandlerTimeout = 100 * time.Millisecond
	app.Get("/lifted", func(c *Ctx) error {
		if _, ok := c.Context().Deadline(); !ok {
			return errors.New("no deadline before the lift")
		}
		c.LiftDeadline()
		c.LiftDeadline()
		if dl, ok := c.Context().Deadline(); ok {
			return Errorf(500, "deadline %v after the lift", dl)
		}
		if _, err := c.Writer().Write([]byte("start ")); err != nil {
			return err
		}
		c.Writer().(http.Flusher).Flush()
		select {
		case <-c.Context().Done():
			return Errorf(500, "context ended: %v", c.Context().Err())
		case <-time.After(400 * time.Millisecond):
		}
		if c.TimedOut() {
			return errors.New("TimedOut after the lift")
		}
		_, err := c.Writer().Write([]byte("end"))
		return err
	})
	// Under a Timeout layer inside New's: both are lifted.
	app.Get("/nested", Timeout(50*time.Millisecond)(func(c *Ctx) error {
		c.LiftDeadline()
		time.Sleep(300 * time.Millisecond)
		return c.Text(200, "nested")
	}))
	// The deadline is lifted for this request only: the next one on the
	// same pooled Ctx times out as usual.
	app.Get("/plain", func(c *Ctx) error {
		<-c.Context().Done()
		return c.Context().Err()
	})
	s := serveApp(t, app, listenLocal(t))
	client := newClient(t, true)
	if r := do(t.Context(), client, "GET", s.url+"/lifted", nil); r.err != nil || r.status != 200 || r.body != "start end" {
		t.Errorf("lifted: %d %q %v", r.status, r.body, r.err)
	}
	if r := do(t.Context(), client, "GET", s.url+"/nested", nil); r.err != nil || r.status != 200 || r.body != "nested" {
		t.Errorf("nested: %d %q %v", r.status, r.body, r.err)
	}
	for range 3 {
		if r := do(t.Context(), client, "GET", s.url+"/plain", nil); r.err != nil || r.status != 503 {
			t.Errorf("a request after a lifted one: %d %q %v, want the timeout's 503", r.status, r.body, r.err)
		}
	}
}

// Without a timeout layer, LiftDeadline does nothing harmful; after the
// deadline passed it cannot revive the request.
func TestLiftDeadlineWithoutTimeoutAndLate(t *testing.T) {
	app := New()
	app.Logger = quietLogger()
	app.HandlerTimeout = Off
	app.Get("/none", func(c *Ctx) error {
		c.LiftDeadline()
		return c.Text(200, "ok")
	})
	app.Get("/late", Timeout(20*time.Millisecond)(func(c *Ctx) error {
		<-c.Context().Done()
		c.LiftDeadline()
		return c.Text(200, "revived")
	}))
	ts := httptest.NewServer(app)
	defer ts.Close()
	srv := ts.URL
	for path, want := range map[string]int{"/none": 200, "/late": 503} {
		res, err := http.Get(srv + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != want || strings.Contains(string(b), "revived") {
			t.Errorf("%s: %d %q, want %d", path, res.StatusCode, b, want)
		}
	}
}

// LiftDeadline stops the body read pacing: a handler that lifted it reads
// a body that pauses longer than BodyReadTimeout.
func TestLiftDeadlineStopsBodyPacing(t *testing.T) {
	t.Parallel()
	app := New()
	app.Config = testConfig()
	app.Config.BodyReadTimeout = 200 * time.Millisecond
	errs := make(chan error, 2)
	body := func(lift bool) HandlerFunc {
		return func(c *Ctx) error {
			if lift {
				c.LiftDeadline()
			}
			b, err := io.ReadAll(c.Request().Body)
			errs <- err
			if err != nil {
				return err
			}
			return c.Text(200, string(b))
		}
	}
	app.Post("/lifted", body(true))
	app.Post("/paced", body(false))
	s := serveApp(t, app, listenLocal(t))
	for _, path := range []string{"/lifted", "/paced"} {
		c := dialRaw(t, s.addr)
		writeRaw(t, c, "POST "+path+" HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\na")
		time.Sleep(600 * time.Millisecond)
		_, _ = c.Write([]byte("b"))
		err := recv(t, errs, "the handler's read of "+path)
		if path == "/lifted" && err != nil {
			t.Errorf("lifted: the body read failed: %v", err)
		}
		if path == "/paced" && err == nil {
			t.Errorf("paced: a body stalled past BodyReadTimeout was read whole")
		}
		c.Close()
	}
}
