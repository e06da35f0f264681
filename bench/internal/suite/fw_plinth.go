package suite

import (
	"net/http"
	"strconv"

	"github.com/plinth-go/plinth"
)

// newPlinth is plinth.Bare() (routing only) with native handlers.
func newPlinth(routes []Route) http.Handler { return plinthApp(plinth.Bare(), routes) }

// newPlinthDefaults is plinth.New(): the same routes inside the default
// layer (recovery, request IDs, security headers).
func newPlinthDefaults(routes []Route) http.Handler { return plinthApp(plinth.New(), routes) }

// securedPlinthDefaults is plinth.New() with its security headers set to the
// four of the middleware scenarios: its default layer (recovery, request ID,
// headers, 30 s timeout, fused in one function) is the whole stack.
func securedPlinthDefaults(routes []Route, _ bool) http.Handler { return plinthFused(routes) }

func plinthFused(routes []Route) http.Handler {
	app := plinth.New()
	app.SetSecurityHeaders(plinth.SecurityHeaders(SecurityHeaderSet()))
	return plinthApp(app, routes)
}

// securedPlinth is plinth.Bare() with the standalone layers installed one by
// one (plinth_layers.go); fused asks for plinthFused instead.
func securedPlinth(routes []Route, fused bool) http.Handler {
	if fused {
		return plinthFused(routes)
	}
	return plinthLayered(routes)
}

func plinthApp(app *plinth.App, routes []Route) http.Handler {
	for _, rt := range routes {
		var h plinth.HandlerFunc
		switch rt.Kind {
		case KindHello:
			h = func(c *plinth.Ctx) error { return c.Text(http.StatusOK, Hello) }
		case KindAccount:
			h = func(c *plinth.Ctx) error {
				id, err := strconv.Atoi(c.Param("id"))
				if err != nil {
					return c.Text(http.StatusBadRequest, InvalidID)
				}
				acct := NewAccount(id)
				return c.JSON(http.StatusOK, &acct)
			}
		default:
			body := rt.Body
			h = func(c *plinth.Ctx) error {
				_, err := c.Writer().Write(body)
				return err
			}
		}
		path := MuxPath(rt.Path)
		switch rt.Method {
		case http.MethodGet:
			app.Get(path, h)
		case http.MethodPost:
			app.Post(path, h)
		case http.MethodPut:
			app.Put(path, h)
		case http.MethodDelete:
			app.Delete(path, h)
		case http.MethodPatch:
			app.Patch(path, h)
		default:
			app.Handle(rt.Method+" "+path, h)
		}
	}
	app.Build()
	return app
}
