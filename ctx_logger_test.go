package plinth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
)

// ctxSeen records the context each record was handled with.
type ctxSeen struct {
	slog.Handler
	deadline *bool
}

func (h ctxSeen) Handle(ctx context.Context, r slog.Record) error {
	_, *h.deadline = ctx.Deadline()
	return h.Handler.Handle(ctx, r)
}

func (h ctxSeen) WithAttrs(as []slog.Attr) slog.Handler {
	return ctxSeen{h.Handler.WithAttrs(as), h.deadline}
}

// c.Logger() adds request_id and route to every record and hands the
// request's context to the App's handler; a fallback's route is
// "unmatched"; With gives a logger that keeps the request's values.
func TestCtxLogger(t *testing.T) {
	var buf bytes.Buffer
	var sawDeadline bool
	app := plinth.New()
	app.Logger = slog.New(ctxSeen{slog.NewJSONHandler(&buf, nil), &sawDeadline})
	var kept *slog.Logger
	app.Get("/users/{id}", func(c *plinth.Ctx) error {
		c.Logger().Info("loaded", "id", c.Param("id"))
		kept = c.Logger().With("phase", "later")
		return c.Text(http.StatusOK, "ok")
	})
	app.SetNotFound(func(c *plinth.Ctx) error {
		c.Logger().Warn("nothing here")
		return plinth.NotFound("no")
	})
	req := httptest.NewRequest(http.MethodGet, "/users/7", nil)
	req.Header.Set("X-Request-Id", "req-123")
	app.ServeHTTP(httptest.NewRecorder(), req)
	app.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/nope", nil))
	kept.Info("after the request") // another request may have reused the Ctx by now
	app.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/users/8", nil))

	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		recs = append(recs, m)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records: %v", len(recs), recs)
	}
	if r := recs[0]; r["request_id"] != "req-123" || r["route"] != "GET /users/{id}" || r["id"] != "7" {
		t.Errorf("handler record: %v", r)
	}
	if r := recs[1]; r["route"] != "unmatched" || r["request_id"] == nil || r["request_id"] == "req-123" {
		t.Errorf("fallback record: %v", r)
	}
	if r := recs[2]; r["request_id"] != "req-123" || r["phase"] != "later" {
		t.Errorf("kept logger: %v", r)
	}
	if !sawDeadline {
		t.Error("the App's handler did not get the request's context (New's deadline)")
	}
}

// A record below the level costs no allocation; neither does making the
// logger.
func TestCtxLoggerDisabledAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	app := plinth.Bare()
	app.Logger = slog.New(slog.NewJSONHandler(&bytes.Buffer{}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	app.Get("/", func(c *plinth.Ctx) error {
		c.Logger().Debug("not written", "n", 1)
		return c.NoContent(http.StatusNoContent)
	})
	app.Build()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	w := httptest.NewRecorder()
	if n := testing.AllocsPerRun(200, func() { app.ServeHTTP(w, req) }); n != 0 {
		t.Errorf("%v allocations per request with a disabled record", n)
	}
}
