package main

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/observe/metrics"
	"github.com/plinth-go/plinth/observe/tracing"
)

// metricsAddr is where the metrics are served when PLINTH_METRICS_ADDR is
// unset: a server of their own on the loopback interface, not the App's
// public port (which answers 404 for /metrics). A scrape is costly (every
// series, about 300 KB) and tells a stranger the routes, the Go version and
// the database pool's state; Prometheus on the same host, or a sidecar,
// reaches it there. PLINTH_METRICS_ADDR=:9090 opens it to the network,
// behind a firewall.
const metricsAddr = "127.0.0.1:9090"

// newApp wires the routes on db, migrated, and returns the App and its
// metrics. It is separate from main so the test serves the same App. Its
// error is a bad OTEL_* or PLINTH_TRACING_* variable.
func newApp(db *data.DB) (*plinth.App, *metrics.Metrics, error) {
	app := plinth.New()
	app.SetState(&store{db: db.SQL()})
	db.Attach(app) // readiness, close after the drain, database errors as problems
	// Prometheus metrics on 127.0.0.1:9090/metrics (or PLINTH_METRICS_ADDR),
	// with the database pool's gauges; traces over OTLP/HTTP when
	// OTEL_EXPORTER_OTLP_ENDPOINT is set (off, and free, otherwise), with
	// trace_id and span_id in the logs.
	m := metrics.New(app, metrics.Config{Addr: metricsAddr})
	m.DBStats("notes", db.SQL().Stats)
	if _, err := tracing.New(app, tracing.Config{}); err != nil {
		return nil, nil, err
	}

	app.Get("/{$}", func(c *plinth.Ctx) error {
		return c.JSON(http.StatusOK, map[string]string{"service": "quickstart", "notes": "/api/notes", "tasks": "/api/tasks", "docs": "/docs"})
	})
	app.Get("/hello/{name}", func(c *plinth.Ctx) error {
		return c.Text(http.StatusOK, "Hello, "+c.Param("name")+"!\n")
	})

	// Typed operations and plain routes share the App, the /api group (its
	// middleware and 404) and the OpenAPI document at /openapi.json, which
	// the docs page at /docs renders.
	doc := api.New(app, api.Config{Title: "Plinth quickstart", Version: "1.0.0",
		Description: "Notes (plain handlers) and tasks (typed operations with validation)."})
	group := doc.Group("/api", registerTasks)
	r := group.Router()
	r.Use(apiVersion)
	r.SetNotFound(func(c *plinth.Ctx) error {
		return plinth.NotFound("no API endpoint at " + c.Request().URL.Path + "; try /api/notes")
	})
	r.Get("/notes", listNotes)
	small := r.Group("") // notes are short: a 64 KiB body limit (413 beyond it)
	small.SetBodyLimit(64 << 10)
	small.Post("/notes", createNote(api.NewBinder[noteInput](api.Config{})))
	r.Get("/notes/{id}", getNote)
	r.Delete("/notes/{id}", deleteNote)
	return app, m, nil
}

// apiVersion is native middleware: it stamps every /api response, including
// the group's 404 and 405 answers.
func apiVersion(next plinth.HandlerFunc) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		c.Header().Set("Api-Version", "1")
		return next(c)
	}
}

func listNotes(c *plinth.Ctx) error {
	notes, err := plinth.State[*store](c).list(c.Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, &notes)
}

func getNote(c *plinth.Ctx) error {
	id, err := noteID(c)
	if err != nil {
		return err
	}
	n, err := plinth.State[*store](c).get(c.Context(), id)
	if errors.Is(err, sql.ErrNoRows) {
		return plinth.Errorf(http.StatusNotFound, "note %d does not exist", id)
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, &n)
}

// noteInput is the body of POST /api/notes. The api package binds and
// validates it for this native handler as it does for typed operations:
// 415 for a body that is not JSON, 400 for malformed JSON, 413 over the
// limit, 422 listing every field error.
type noteInput struct {
	Text string `json:"text" validate:"required,maxLength=1000"`
	Link string `json:"link,omitempty" validate:"format=url"` // http(s) only: no javascript: links
}

// Validate runs after the tag rules passed.
func (n *noteInput) Validate(context.Context) error {
	if strings.TrimSpace(n.Text) == "" {
		return &api.FieldError{Location: "body.text", Message: "must not be blank", Value: n.Text}
	}
	return nil
}

// createNote is the handler of POST /api/notes; the binder is compiled once,
// at startup.
func createNote(b *api.Binder[noteInput]) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		var in noteInput
		if err := b.Bind(c, &in); err != nil {
			return err
		}
		n, err := plinth.State[*store](c).add(c.Context(), strings.TrimSpace(in.Text), in.Link)
		if err != nil {
			return err
		}
		c.Header().Set("Location", "/api/notes/"+strconv.Itoa(n.ID))
		return c.JSON(http.StatusCreated, &n)
	}
}

func deleteNote(c *plinth.Ctx) error {
	id, err := noteID(c)
	if err != nil {
		return err
	}
	if err := plinth.State[*store](c).remove(c.Context(), id); err != nil {
		return err // data.ErrNotFound: db.Attach renders it as a 404 problem
	}
	return c.NoContent(http.StatusNoContent)
}

func noteID(c *plinth.Ctx) (int, error) {
	id, err := strconv.Atoi(c.Param("id"))
	if err != nil || id <= 0 {
		return 0, plinth.BadRequest("id must be a positive integer")
	}
	return id, nil
}
