package plinthtfb

import (
	"net/http"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/bench/tfb/internal/tfb"
)

// serverHeader is the Server header's value, shared by every response.
var serverHeader = []string{"Plinth"}

// New returns the App serving the TFB endpoints from s: /json, /db,
// /queries, /fortunes, /updates, /plaintext and /cached-queries.
func New(s tfb.Setup) *plinth.App {
	h := &handlers{store: s.Store, cache: s.Cache}
	app := plinth.Bare()
	app.Use(serverName)
	app.Get("/json", h.json)
	app.Get("/db", h.db)
	app.Get("/queries", h.queries)
	app.Get("/fortunes", h.fortunes)
	app.Get("/updates", h.updates)
	app.Get("/plaintext", h.plaintext)
	app.Get("/cached-queries", h.cachedQueries)
	return app
}

// serverName sets "Server: Plinth" on every response.
func serverName(next plinth.HandlerFunc) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		c.Header()["Server"] = serverHeader
		return next(c)
	}
}

// handlers holds what the handlers read.
type handlers struct {
	store tfb.Store
	cache *tfb.Cache
}

// message is the json test's object.
type message struct {
	Message string `json:"message"`
}

func (h *handlers) json(c *plinth.Ctx) error {
	return c.JSON(http.StatusOK, &message{Message: "Hello, World!"})
}

func (h *handlers) plaintext(c *plinth.Ctx) error {
	return c.Text(http.StatusOK, "Hello, World!")
}

func (h *handlers) db(c *plinth.Ctx) error {
	var w [1]tfb.World
	if err := h.store.Worlds(c.Context(), w[:]); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, &w[0])
}

func (h *handlers) queries(c *plinth.Ctx) error {
	ws := make([]tfb.World, tfb.QueryCount(c.Query("queries")))
	if err := h.store.Worlds(c.Context(), ws); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ws)
}

func (h *handlers) updates(c *plinth.Ctx) error {
	ws := make([]tfb.World, tfb.QueryCount(c.Query("queries")))
	if err := h.store.UpdateWorlds(c.Context(), ws); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ws)
}

func (h *handlers) cachedQueries(c *plinth.Ctx) error {
	ws := make([]tfb.World, tfb.QueryCount(c.Query("count")))
	h.cache.Fill(ws)
	return c.JSON(http.StatusOK, ws)
}

func (h *handlers) fortunes(c *plinth.Ctx) error {
	rows, err := h.store.Fortunes(c.Context(), make([]tfb.Fortune, 0, 16))
	if err != nil {
		return err
	}
	page, err := tfb.NewFortunesPage(rows)
	if err != nil {
		return err
	}
	defer page.Release()
	return c.Bytes(http.StatusOK, "text/html; charset=utf-8", page.Bytes())
}
