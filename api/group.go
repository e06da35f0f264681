package api

import (
	"strings"

	"github.com/plinth-go/plinth"
)

// Group is a set of operations below a path prefix, on a plinth group of the
// same prefix: middleware added to its Router wraps its operations.
type Group struct {
	api    *API
	router *plinth.Router
	prefix string
}

// Registrar is where Register puts an operation: the *API (the App's root)
// or a *Group.
type Registrar interface {
	registrar() (*API, *plinth.Router, string)
}

// registrar returns where an operation registered on a goes: the API, the
// App's root router and no prefix.
func (a *API) registrar() (*API, *plinth.Router, string) { return a, a.app.Router, "" }

// registrar returns where an operation registered on g goes: the API, the
// group's router and its full prefix.
func (g *Group) registrar() (*API, *plinth.Router, string) {
	return g.api, g.router, g.prefix
}

// Group returns the operations group below prefix (a path such as "/v1"),
// backed by app.Group(prefix), and calls each fn with it.
func (a *API) Group(prefix string, fn ...func(*Group)) *Group {
	return newGroup(a, a.app.Router, "", prefix, fn)
}

// Group returns a group below this group's prefix.
func (g *Group) Group(prefix string, fn ...func(*Group)) *Group {
	return newGroup(g.api, g.router, g.prefix, prefix, fn)
}

// Router returns the plinth group behind g, for middleware (Use),
// fallbacks and plain routes under the same prefix.
func (g *Group) Router() *plinth.Router { return g.router }

// newGroup makes the group below base+prefix on a plinth group of parent
// and calls each fn with it.
func newGroup(a *API, parent *plinth.Router, base, prefix string, fn []func(*Group)) *Group {
	g := &Group{api: a, router: parent.Group(prefix), prefix: base + strings.TrimSuffix(prefix, "/")}
	for _, f := range fn {
		f(g)
	}
	return g
}
