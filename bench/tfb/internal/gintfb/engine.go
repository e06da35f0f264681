// Package gintfb is the gin peer of the TechEmpower benchmark: release
// mode, no logger, no recovery, with the shared pgx Store. peers/gin is its
// main.
package gintfb

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/plinth-go/plinth/bench/tfb/internal/tfb"
)

// New returns the gin Engine serving the TFB endpoints from s.
func New(s tfb.Setup) *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	h := &handlers{store: s.Store, cache: s.Cache}
	r := gin.New()
	r.Use(func(c *gin.Context) { c.Header("Server", "Gin") })
	r.GET("/json", h.json)
	r.GET("/db", h.db)
	r.GET("/queries", h.queries)
	r.GET("/fortunes", h.fortunes)
	r.GET("/updates", h.updates)
	r.GET("/plaintext", h.plaintext)
	r.GET("/cached-queries", h.cachedQueries)
	return r
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

func (h *handlers) json(c *gin.Context) {
	c.JSON(http.StatusOK, &message{Message: "Hello, World!"})
}

func (h *handlers) plaintext(c *gin.Context) {
	c.String(http.StatusOK, "Hello, World!")
}

func (h *handlers) db(c *gin.Context) {
	var ws [1]tfb.World
	if err := h.store.Worlds(c.Request.Context(), ws[:]); err != nil {
		c.String(http.StatusInternalServerError, err.Error())
		return
	}
	c.JSON(http.StatusOK, &ws[0])
}

func (h *handlers) queries(c *gin.Context) {
	ws := make([]tfb.World, tfb.QueryCount(c.Query("queries")))
	if err := h.store.Worlds(c.Request.Context(), ws); err != nil {
		c.String(http.StatusInternalServerError, err.Error())
		return
	}
	c.JSON(http.StatusOK, ws)
}

func (h *handlers) updates(c *gin.Context) {
	ws := make([]tfb.World, tfb.QueryCount(c.Query("queries")))
	if err := h.store.UpdateWorlds(c.Request.Context(), ws); err != nil {
		c.String(http.StatusInternalServerError, err.Error())
		return
	}
	c.JSON(http.StatusOK, ws)
}

func (h *handlers) cachedQueries(c *gin.Context) {
	ws := make([]tfb.World, tfb.QueryCount(c.Query("count")))
	h.cache.Fill(ws)
	c.JSON(http.StatusOK, ws)
}

func (h *handlers) fortunes(c *gin.Context) {
	rows, err := h.store.Fortunes(c.Request.Context(), make([]tfb.Fortune, 0, 16))
	if err != nil {
		c.String(http.StatusInternalServerError, err.Error())
		return
	}
	page, err := tfb.NewFortunesPage(rows)
	if err != nil {
		c.String(http.StatusInternalServerError, err.Error())
		return
	}
	defer page.Release()
	c.Data(http.StatusOK, "text/html; charset=utf-8", page.Bytes())
}
