package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/data/datatest"
	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/jobs/jobstest"
	"github.com/plinth-go/plinth/plinthtest"
	"github.com/plinth-go/plinth/web"
	"github.com/plinth-go/plinth/ws"
)

// Receipt is a job the shop enqueues.
type Receipt struct{ Order int }

// Kind names the job.
func (Receipt) Kind() string { return "receipt" }

// TestShop is the consumer test's own test: the core (web, jobs), the data
// module on SQLite, ws and plinthtest, as a user's module resolves them from
// the rehearsal proxy.
func TestShop(t *testing.T) {
	backend := jobstest.New()
	queue := jobstest.NewClient(t, backend)
	sent := 0
	jobs.Handle(queue, func(context.Context, *jobs.Job[Receipt]) error { sent++; return nil })
	db := datatest.SQLite(t, datatest.Config{})
	app := plinth.New()
	db.Attach(app)
	app.Get("/answer", func(c *plinth.Ctx) error {
		var n int
		if err := db.QueryRow(c.Context(), "SELECT 41 + 1").Scan(&n); err != nil {
			return err
		}
		if _, err := queue.Enqueue(c.Context(), Receipt{Order: n}, nil); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]int{"answer": n})
	})
	app.Post("/order", func(c *plinth.Ctx) error {
		var order struct {
			Item string `form:"item" validate:"required"`
		}
		form, err := web.BindForm(c, &order)
		if err != nil {
			return err
		}
		if !form.Valid() {
			return c.Text(http.StatusUnprocessableEntity, form.Error("item"))
		}
		return c.Text(http.StatusCreated, order.Item)
	})
	app.Get("/ws", func(c *plinth.Ctx) error {
		conn, err := ws.Accept(c, ws.Config{})
		if err != nil {
			return err // not a WebSocket handshake: a problem
		}
		return conn.Close(ws.StatusNormalClosure, "bye")
	})
	c := plinthtest.New(t, app, plinthtest.Config{})
	c.Get("/answer").Status(200).JSONEq(`{"answer":42}`)
	jobstest.Count[Receipt](t, backend, 1)
	backend.Drain(context.Background(), queue)
	if sent != 1 {
		t.Errorf("the receipt job ran %d times, want once", sent)
	}
	c.Post("/order", "application/x-www-form-urlencoded", strings.NewReader("item=teapot")).Status(201).Contains("teapot")
	c.Post("/order", "application/x-www-form-urlencoded", strings.NewReader("item=")).Status(422).Contains("required")
	if r := c.Get("/ws"); r.Code() < 400 {
		t.Errorf("GET /ws without a handshake: %d, want a 4xx problem", r.Code())
	}
}
