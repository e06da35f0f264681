package plinth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
)

func decodeProblem(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("problem body is not JSON: %v: %q", err, b)
	}
	return p
}

func TestErrorRendering(t *testing.T) {
	var logs bytes.Buffer
	app := plinth.Bare()
	app.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	secret := errors.New("db password is hunter2")
	app.Get("/problem", func(c *plinth.Ctx) error {
		return plinth.Error(http.StatusConflict, `name "x" <taken>`).With("field", "name").With("status", "ignored")
	})
	app.Get("/wrapped", func(c *plinth.Ctx) error {
		return fmt.Errorf("saving: %w", plinth.NotFound("no such user").Wrap(secret))
	})
	app.Get("/unknown", func(c *plinth.Ctx) error { return secret })
	app.Get("/typed", func(c *plinth.Ctx) error {
		return &plinth.Problem{Type: "https://example.com/probs/out-of-credit", Title: "Out of credit", Status: 403, Instance: "/account/1"}
	})
	app.Get("/toolarge", func(c *plinth.Ctx) error { return &http.MaxBytesError{Limit: 10} })
	app.Get("/slowbody", func(c *plinth.Ctx) error {
		return fmt.Errorf("reading: %w", &plinth.BodyError{Err: os.ErrDeadlineExceeded})
	})
	app.Get("/late", func(c *plinth.Ctx) error {
		if err := c.Text(200, "partial"); err != nil {
			return err
		}
		return errors.New("failed after writing")
	})

	tests := []struct {
		path   string
		status int
		want   map[string]any
	}{
		{"/problem", 409, map[string]any{"type": "about:blank", "title": "Conflict", "status": 409.0, "detail": `name "x" <taken>`, "field": "name"}},
		{"/wrapped", 404, map[string]any{"title": "Not Found", "detail": "no such user"}},
		{"/unknown", 500, map[string]any{"title": "Internal Server Error", "status": 500.0}},
		{"/typed", 403, map[string]any{"type": "https://example.com/probs/out-of-credit", "title": "Out of credit", "instance": "/account/1"}},
		{"/toolarge", 413, map[string]any{"title": "Request Entity Too Large"}},
		{"/slowbody", 408, map[string]any{"title": "Request Timeout"}},
	}
	for _, tc := range tests {
		rec := serve(app, "GET", tc.path)
		if rec.Code != tc.status || rec.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %q", tc.path, rec.Code, rec.Header().Get("Content-Type"))
			continue
		}
		if strings.Contains(rec.Body.String(), "hunter2") {
			t.Errorf("%s: leaked the cause: %q", tc.path, rec.Body)
		}
		p := decodeProblem(t, rec.Body.Bytes())
		for k, v := range tc.want {
			if p[k] != v {
				t.Errorf("%s: %s = %v, want %v (body %s)", tc.path, k, p[k], v, rec.Body)
			}
		}
		if tc.path == "/problem" && p["status"] != 409.0 {
			t.Errorf("an extension overrode the status: %v", p)
		}
	}
	if !strings.Contains(logs.String(), "hunter2") {
		t.Errorf("the unknown error was not logged: %q", logs.String())
	}

	logs.Reset()
	rec := serve(app, "GET", "/late")
	if rec.Code != 200 || rec.Body.String() != "partial" {
		t.Errorf("/late: a second response was written: %d %q", rec.Code, rec.Body)
	}
	if !strings.Contains(logs.String(), "failed after writing") {
		t.Errorf("/late: error not logged: %q", logs.String())
	}
}

func TestCustomErrorHandler(t *testing.T) {
	app := plinth.Bare()
	app.ErrorHandler = func(c *plinth.Ctx, err error) {
		if p, ok := errors.AsType[*plinth.Problem](err); ok && p.Status == 418 {
			_ = c.Text(418, "custom teapot")
			return
		}
		plinth.DefaultErrorHandler(c, err)
	}
	app.Get("/tea", func(c *plinth.Ctx) error { return plinth.Error(418, "") })
	app.Get("/other", func(c *plinth.Ctx) error { return plinth.BadRequest("nope") })
	if rec := serve(app, "GET", "/tea"); rec.Code != 418 || rec.Body.String() != "custom teapot" {
		t.Errorf("/tea: %d %q", rec.Code, rec.Body)
	}
	if rec := serve(app, "GET", "/other"); rec.Code != 400 || decodeProblem(t, rec.Body.Bytes())["detail"] != "nope" {
		t.Errorf("/other: %d %q", rec.Code, rec.Body)
	}
}

func TestProblemAsError(t *testing.T) {
	cause := errors.New("cause")
	p := plinth.Errorf(422, "field %s", "x").Wrap(cause)
	if !errors.Is(p, cause) {
		t.Error("errors.Is does not see the cause")
	}
	if got := p.Error(); got != "422 Unprocessable Entity: field x: cause" {
		t.Errorf("Error() = %q", got)
	}
	if (&plinth.Problem{}).StatusCode() != 500 {
		t.Error("zero Problem should be a 500")
	}
}

// The JSON escaping of problem members must match encoding/json's reading:
// whatever the detail holds, the client decodes the same string.
func FuzzProblemDetail(f *testing.F) {
	for _, s := range []string{"", "plain", `quote " back \ slash`, "ctl \x00\x1f\n\t", "<script>&", "bad \xff utf8", "\u2028\u2029", "é漢字🙂"} {
		f.Add(s)
	}
	app := plinth.Bare()
	app.Get("/", func(c *plinth.Ctx) error { return plinth.BadRequest(c.Request().Header.Get("X-Detail")) })
	app.Build()
	f.Fuzz(func(t *testing.T, detail string) {
		req := httptest.NewRequest("GET", "/", nil)
		req.Header["X-Detail"] = []string{detail}
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		var got map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("invalid JSON for %q: %v: %q", detail, err, rec.Body)
		}
		want, _ := json.Marshal(detail)
		var wantS string
		_ = json.Unmarshal(want, &wantS)
		if detail != "" && got["detail"] != wantS {
			t.Fatalf("detail %q decoded as %q, want %q", detail, got["detail"], wantS)
		}
	})
}

// A handler that set representation headers and then failed: the problem
// document must not go out labelled as gzip or with a stale length or tag.
func TestProblemDropsRepresentationHeaders(t *testing.T) {
	app := plinth.Bare()
	app.Get("/", func(c *plinth.Ctx) error {
		h := c.Header()
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Length", "12345")
		h.Set("ETag", `"abc"`)
		h.Set("Last-Modified", "Mon, 30 Nov 2026 10:00:00 GMT")
		h.Set("Cache-Control", "no-store")
		return plinth.Error(409, "conflict")
	})
	rec := serve(app, "GET", "/")
	for _, k := range []string{"Content-Encoding", "Content-Length", "ETag", "Last-Modified"} {
		if v := rec.Header().Get(k); v != "" {
			t.Errorf("problem response kept %s: %q", k, v)
		}
	}
	if rec.Code != 409 || rec.Header().Get("Cache-Control") != "no-store" || rec.Header().Get("Content-Type") != "application/problem+json" {
		t.Errorf("%d %v", rec.Code, rec.Header())
	}
}

// Which 5xx problems are logged: a 500, or any 5xx with a cause; a
// deliberate 503 without one (load shedding, maintenance) is not.
func TestProblemLogging(t *testing.T) {
	for _, tc := range []struct {
		err    error
		logged bool
	}{
		{plinth.Error(500, "broken"), true},
		{plinth.Error(503, "shedding load"), false},
		{plinth.Error(502, "upstream").Wrap(errors.New("dial tcp: refused")), true},
		{plinth.Error(404, "missing").Wrap(errors.New("sql: no rows")), false},
	} {
		var logs bytes.Buffer
		app := plinth.Bare()
		app.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		app.Get("/", func(c *plinth.Ctx) error { return tc.err })
		serve(app, "GET", "/")
		if got := logs.Len() > 0; got != tc.logged {
			t.Errorf("%v: logged %v, want %v (%q)", tc.err, got, tc.logged, logs.String())
		}
	}
}

// TestContextErrorsLoggedOnce: an error a handler returns
// because its request's context ended is not a logged 500: a client that
// left is recorded as 499 at debug level, a handler timeout as one warn line
// from the timeout layer with its 503; an operation's own deadline, with the
// request alive, is still a 500 logged as an error.
func TestContextErrorsLoggedOnce(t *testing.T) {
	levels := func(logs string) (errs, warns, debugs int) {
		return strings.Count(logs, "level=ERROR"), strings.Count(logs, "level=WARN"), strings.Count(logs, "level=DEBUG")
	}
	viaStd := func(next http.Handler) http.Handler { // errors are rendered inside it
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { next.ServeHTTP(w, r) })
	}
	newApp := func(logs *bytes.Buffer) *plinth.App {
		app := plinth.New()
		app.HandlerTimeout = 50 * time.Millisecond
		app.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		wait := func(c *plinth.Ctx) error {
			<-c.Context().Done()
			return fmt.Errorf("query: %w", c.Context().Err())
		}
		app.Get("/wait", wait)
		app.WithHTTP(viaStd).Get("/wait-std", wait)
		app.Get("/own-deadline", func(c *plinth.Ctx) error {
			ctx, cancel := context.WithTimeout(c.Context(), time.Millisecond)
			defer cancel()
			<-ctx.Done()
			return ctx.Err()
		})
		return app
	}
	for _, path := range []string{"/wait", "/wait-std"} {
		var logs bytes.Buffer
		app := newApp(&logs)
		ctx, cancel := context.WithCancel(context.Background())
		req := httptest.NewRequestWithContext(ctx, "GET", path, nil)
		cancel() // the client went away
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		e, w, d := levels(logs.String())
		if rec.Code != plinth.StatusClientClosedRequest || e != 0 || w != 0 || d != 1 || !strings.Contains(logs.String(), "client closed") {
			t.Errorf("%s, client gone: %d, logs %d error %d warn %d debug, want 499 and one debug line:\n%s", path, rec.Code, e, w, d, &logs)
		}

		logs.Reset()
		rec = httptest.NewRecorder()
		app.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		e, w, _ = levels(logs.String())
		if rec.Code != 503 || e != 0 || w != 1 || !strings.Contains(logs.String(), "handler timed out") {
			t.Errorf("%s, timeout: %d, logs %d error %d warn, want 503 and one warn line:\n%s", path, rec.Code, e, w, &logs)
		}
	}
	var logs bytes.Buffer
	rec := httptest.NewRecorder()
	newApp(&logs).ServeHTTP(rec, httptest.NewRequest("GET", "/own-deadline", nil))
	if e, _, _ := levels(logs.String()); rec.Code != 500 || e != 1 {
		t.Errorf("an operation's own deadline: %d with %d error lines, want 500 and one", rec.Code, e)
	}
}

// TestServerSideDeadlineIsNotTheClients: a context that the App's own
// middleware derived (a standard timeout middleware) ending is the server's
// failure, logged as an error, not a client that left (499).
func TestServerSideDeadlineIsNotTheClients(t *testing.T) {
	var logs bytes.Buffer
	app := plinth.New()
	app.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	timeout := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, cancel := context.WithTimeout(r.Context(), 20*time.Millisecond)
			defer cancel()
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
	app.WithHTTP(timeout).Get("/report", func(c *plinth.Ctx) error {
		<-c.Context().Done()
		return fmt.Errorf("querying the report: %w", c.Context().Err())
	})
	rec := serve(app, "GET", "/report")
	if rec.Code != 500 || !strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("a server-side deadline: %d, logs %q; want a 500 logged as an error", rec.Code, logs.String())
	}
}
