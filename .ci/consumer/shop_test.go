package main

import (
	"net/http"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/data/datatest"
	"github.com/plinth-go/plinth/plinthtest"
	"github.com/plinth-go/plinth/ws"
)

// TestShop is the consumer test's own test: the core, the data module on
// SQLite, ws and plinthtest, as a user's module resolves them from the
// rehearsal proxy.
func TestShop(t *testing.T) {
	db := datatest.SQLite(t, datatest.Config{})
	app := plinth.New()
	db.Attach(app)
	app.Get("/answer", func(c *plinth.Ctx) error {
		var n int
		if err := db.QueryRow(c.Context(), "SELECT 41 + 1").Scan(&n); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]int{"answer": n})
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
	if r := c.Get("/ws"); r.Code() < 400 {
		t.Errorf("GET /ws without a handshake: %d, want a 4xx problem", r.Code())
	}
	var _ *data.DB = db
}
