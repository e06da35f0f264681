package plinth_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/racetest"
)

// TestProblemWriterEveryPath checks that App.ProblemWriter replaces the JSON
// on every path that answers with a problem, with the problem's status,
// title, detail and the request ID reachable, and the headers set before it
// (Allow, Retry-After) kept.
func TestProblemWriterEveryPath(t *testing.T) {
	app := plinth.New()
	app.Logger = slog.New(slog.DiscardHandler)
	app.HandlerTimeout = 20 * time.Millisecond
	app.ProblemWriter = func(c *plinth.Ctx, p *plinth.Problem) {
		c.Header().Set("Content-Type", "text/plain; charset=utf-8")
		c.Writer().WriteHeader(p.StatusCode())
		_, _ = io.WriteString(c.Writer(), "custom|"+p.TitleText()+"|"+p.Detail+"|"+c.RequestID())
	}
	maint := middleware.NewMaintenance(middleware.MaintenanceConfig{Logger: slog.New(slog.DiscardHandler)})
	maint.Enable(2 * time.Minute)
	app.Get("/conflict", func(c *plinth.Ctx) error { return plinth.Conflict("taken") })
	app.Get("/unknown", func(c *plinth.Ctx) error { return io.ErrUnexpectedEOF })
	app.Get("/panic", func(c *plinth.Ctx) error { panic("boom") })
	app.Get("/slow", func(c *plinth.Ctx) error {
		<-c.Context().Done()
		return c.Context().Err()
	})
	app.Post("/upload", func(c *plinth.Ctx) error {
		_, err := io.ReadAll(c.Request().Body)
		return err
	})
	down := app.Group("/down")
	down.Use(maint.Middleware())
	down.Get("/x", func(c *plinth.Ctx) error { return nil })
	app.SetBodyLimit(4)

	tests := []struct {
		method, target, body string
		status               int
		title, detail        string
		header, value        string
	}{
		{"GET", "/conflict", "", 409, "Conflict", "taken", "", ""},
		{"GET", "/unknown", "", 500, "Internal Server Error", "", "", ""},
		{"GET", "/panic", "", 500, "Internal Server Error", "", "", ""},
		{"GET", "/slow", "", 503, "Service Unavailable", "the handler did not finish within 20ms", "", ""},
		{"POST", "/upload", "too large", 413, "Request Entity Too Large", "request body larger than the limit of 4 bytes", "", ""},
		{"GET", "/nowhere", "", 404, "Not Found", "", "", ""},
		{"DELETE", "/conflict", "", 405, "Method Not Allowed", "", "Allow", "GET, HEAD, OPTIONS"},
		{"GET", "/down/x", "", 503, "Service Unavailable", "the service is down for maintenance", "Retry-After", "120"},
	}
	for _, tc := range tests {
		var body io.Reader
		if tc.body != "" {
			body = strings.NewReader(tc.body)
		}
		req := httptest.NewRequest(tc.method, tc.target, body)
		req.Header.Set("X-Request-Id", "req-1")
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		want := "custom|" + tc.title + "|" + tc.detail + "|req-1"
		if rec.Code != tc.status || rec.Body.String() != want {
			t.Errorf("%s %s: %d %q, want %d %q", tc.method, tc.target, rec.Code, rec.Body, tc.status, want)
		}
		if tc.header != "" && rec.Header().Get(tc.header) != tc.value {
			t.Errorf("%s %s: %s = %q, want %q", tc.method, tc.target, tc.header, rec.Header().Get(tc.header), tc.value)
		}
	}
}

// TestProblemWriterFallsBackToJSON checks that a ProblemWriter can hand a
// problem to the built-in JSON, and that doing so for the 404 fallback
// costs nothing more than the built-in path.
func TestProblemWriterFallsBackToJSON(t *testing.T) {
	app := plinth.Bare()
	app.ProblemWriter = func(c *plinth.Ctx, p *plinth.Problem) { c.WriteProblemJSON(p) }
	app.Get("/x", func(c *plinth.Ctx) error { return nil })
	rec := serve(app, "GET", "/nowhere")
	if rec.Code != 404 || rec.Header().Get("Content-Type") != "application/problem+json" ||
		rec.Body.String() != `{"type":"about:blank","title":"Not Found","status":404}`+"\n" {
		t.Fatalf("%d %v %q", rec.Code, rec.Header(), rec.Body)
	}
	if racetest.Enabled {
		return
	}
	req := httptest.NewRequest("GET", "/nowhere", nil)
	w := &discardWriter{h: http.Header{}}
	serve(app, "GET", "/nowhere") // grow the Ctx's buffer
	if n := testing.AllocsPerRun(200, func() {
		clear(w.h)
		app.ServeHTTP(w, req)
	}); n != 0 {
		t.Errorf("404 through a ProblemWriter that falls back to JSON: %v allocs, want 0", n)
	}
}

func TestProblemTitleText(t *testing.T) {
	for _, tc := range []struct {
		p    *plinth.Problem
		want string
	}{
		{&plinth.Problem{Status: 404}, "Not Found"},
		{&plinth.Problem{}, "Internal Server Error"},
		{&plinth.Problem{Status: 409, Title: "Name taken"}, "Name taken"},
		{&plinth.Problem{Status: 599}, "Error"},
	} {
		if got := tc.p.TitleText(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}
