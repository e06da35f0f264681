package api

import (
	"slices"
	"strings"

	"github.com/plinth-go/plinth"
)

// Group is a set of operations below a path prefix, on a plinth group of the
// same prefix: middleware added to its Router wraps its operations.
type Group struct {
	api    *API
	router *plinth.Router
	prefix string
	tags   []string // given to operations registered without tags (SetTags)
	// security is given to operations registered without Security
	// (SetSecurity).
	security []map[string][]string
}

// Registrar is where Register puts an operation: the *API (the App's root)
// or a *Group.
type Registrar interface {
	registrar() (*API, *plinth.Router, string, []string)
	scopeSecurity() []map[string][]string
}

// registrar returns where an operation registered on a goes: the API, the
// App's root router, no prefix and no default tags.
func (a *API) registrar() (*API, *plinth.Router, string, []string) { return a, a.app.Router, "", nil }

// registrar returns where an operation registered on g goes: the API, the
// group's router, its full prefix and its default tags.
func (g *Group) registrar() (*API, *plinth.Router, string, []string) {
	return g.api, g.router, g.prefix, g.tags
}

// SetTags sets the tags that operations registered on g, or on the groups
// made from it afterwards, get when their Operation has none: the document
// then groups them (the module package tags each module's operations so).
func (g *Group) SetTags(tags ...string) {
	g.tags = slices.Clone(tags)
}

// Group returns the operations group below prefix (a path such as "/v1"),
// backed by app.Group(prefix), and calls each fn with it.
func (a *API) Group(prefix string, fn ...func(*Group)) *Group {
	return newGroup(a, a.app.Router, "", prefix, nil, fn)
}

// Group returns a group below this group's prefix.
func (g *Group) Group(prefix string, fn ...func(*Group)) *Group {
	sub := newGroup(g.api, g.router, g.prefix, prefix, g.tags, nil)
	sub.security = g.security
	for _, f := range fn {
		f(sub)
	}
	return sub
}

// Router returns the plinth group behind g, for middleware (Use),
// fallbacks and plain routes under the same prefix.
func (g *Group) Router() *plinth.Router { return g.router }

// newGroup makes the group below base+prefix on a plinth group of parent
// and calls each fn with it.
func newGroup(a *API, parent *plinth.Router, base, prefix string, tags []string, fn []func(*Group)) *Group {
	g := &Group{api: a, router: parent.Group(prefix), prefix: base + strings.TrimSuffix(prefix, "/"), tags: tags}
	for _, f := range fn {
		f(g)
	}
	return g
}
