// Package fibertfb is the fiber (v2, fasthttp) peer of the TechEmpower
// benchmark, with the shared pgx Store. peers/fiber is its main.
package fibertfb

import (
	"github.com/gofiber/fiber/v2"

	"github.com/plinth-go/plinth/bench/tfb/internal/tfb"
)

// New returns the fiber App serving the TFB endpoints from s.
func New(s tfb.Setup) *fiber.App {
	h := &handlers{store: s.Store, cache: s.Cache}
	app := fiber.New(fiber.Config{
		ServerHeader:          "Fiber",
		DisableStartupMessage: true,
	})
	app.Get("/json", h.json)
	app.Get("/db", h.db)
	app.Get("/queries", h.queries)
	app.Get("/fortunes", h.fortunes)
	app.Get("/updates", h.updates)
	app.Get("/plaintext", h.plaintext)
	app.Get("/cached-queries", h.cachedQueries)
	return app
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

func (h *handlers) json(c *fiber.Ctx) error {
	return c.JSON(&message{Message: "Hello, World!"})
}

func (h *handlers) plaintext(c *fiber.Ctx) error {
	return c.SendString("Hello, World!") // fiber's default type is text/plain; charset=utf-8
}

func (h *handlers) db(c *fiber.Ctx) error {
	var ws [1]tfb.World
	if err := h.store.Worlds(c.UserContext(), ws[:]); err != nil {
		return err
	}
	return c.JSON(&ws[0])
}

func (h *handlers) queries(c *fiber.Ctx) error {
	ws := make([]tfb.World, tfb.QueryCount(c.Query("queries")))
	if err := h.store.Worlds(c.UserContext(), ws); err != nil {
		return err
	}
	return c.JSON(ws)
}

func (h *handlers) updates(c *fiber.Ctx) error {
	ws := make([]tfb.World, tfb.QueryCount(c.Query("queries")))
	if err := h.store.UpdateWorlds(c.UserContext(), ws); err != nil {
		return err
	}
	return c.JSON(ws)
}

func (h *handlers) cachedQueries(c *fiber.Ctx) error {
	ws := make([]tfb.World, tfb.QueryCount(c.Query("count")))
	h.cache.Fill(ws)
	return c.JSON(ws)
}

func (h *handlers) fortunes(c *fiber.Ctx) error {
	rows, err := h.store.Fortunes(c.UserContext(), make([]tfb.Fortune, 0, 16))
	if err != nil {
		return err
	}
	page, err := tfb.NewFortunesPage(rows)
	if err != nil {
		return err
	}
	defer page.Release()
	c.Set(fiber.HeaderContentType, "text/html; charset=utf-8")
	return c.Send(page.Bytes()) // fasthttp copies the body
}
