package module

import (
	"log/slog"
	"net/http"
	"reflect"
	"strings"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
)

// Routable is what a controller is: a type whose methods are handlers,
// which its Routes method registers explicitly on r (no struct tags, no
// method names read at run time).
type Routable interface {
	Routes(r *Routes)
}

type controllerDecl struct {
	typ reflect.Type
	cfg ControllerConfig
}

// ControllerConfig places a controller: its path prefix below its
// module's (default none) and its scope (filters, guards, middleware)
// inside the module's.
type ControllerConfig struct {
	Prefix string
	Scope  Scope
}

// Controller declares that m's provider of T (or one m imports) is a
// controller: Mount calls its Routes with the module's prefix and scope and
// the controller's (an optional ControllerConfig).
func Controller[T Routable](m *Module, cfg ...ControllerConfig) {
	m.open()
	if len(cfg) > 1 {
		panic("module: " + m.name + ": Controller takes at most one ControllerConfig")
	}
	d := controllerDecl{typ: typeOf[T]()}
	if len(cfg) == 1 {
		d.cfg = cfg[0]
		d.cfg.Prefix = strings.TrimSuffix(d.cfg.Prefix, "/")
	}
	m.controllers = append(m.controllers, d)
}

// Routes is where a controller registers its handlers: plain handlers
// with Get, Post, ... and typed api operations on API(). Every route gets
// the module's, then the controller's, then its own filters, guards and
// middleware, composed when it is registered.
type Routes struct {
	module *Module
	router *plinth.Router
	group  *api.Group   // nil without MountConfig.API
	log    *slog.Logger // Mount's warnings
}

// Module returns the module the routes belong to.
func (r *Routes) Module() *Module { return r.module }

// Router returns the plinth group of the controller (its prefix, with the
// module's and the controller's scopes), for fallbacks or plain
// net/http handlers.
func (r *Routes) Router() *plinth.Router { return r.router }

// API returns the api group of the controller, on which api.Register adds
// typed operations tagged with the module's name; with a scope, a group
// whose operations also get it. It panics when Mount had no
// MountConfig.API.
func (r *Routes) API(s ...Scope) *api.Group {
	if r.group == nil {
		panic("module: " + r.module.name + ": Routes.API needs MountConfig.API")
	}
	sc := routeScope(s)
	if sc.empty() && len(sc.Security) == 0 {
		return r.group
	}
	g := r.group.Group("")
	if !sc.empty() {
		g.Router().Use(sc.middleware())
	}
	if len(sc.Security) > 0 {
		g.SetSecurity(sc.Security...)
	}
	return g
}

// Handle registers h for pattern ("GET /items/{id}"), below the prefix,
// inside the optional scope s. The path "" is the prefix itself; a path
// ending in "/" ("POST /") matches every path below the prefix, as in
// net/http's patterns, so Mount logs a warning for it: write "" for the
// prefix alone, "/{$}" for the prefix and its slash, or "/{path...}" for
// a catch-all on purpose.
func (r *Routes) Handle(pattern string, h plinth.HandlerFunc, s ...Scope) {
	r.warnCatchAll(pattern)
	if sc := routeScope(s); !sc.empty() {
		h = sc.wrap(h)
	}
	r.router.Handle(pattern, h)
}

// Get registers h for GET (and HEAD) path.
func (r *Routes) Get(path string, h plinth.HandlerFunc, s ...Scope) {
	r.Handle(http.MethodGet+" "+path, h, s...)
}

// Post registers h for POST path.
func (r *Routes) Post(path string, h plinth.HandlerFunc, s ...Scope) {
	r.Handle(http.MethodPost+" "+path, h, s...)
}

// Put registers h for PUT path.
func (r *Routes) Put(path string, h plinth.HandlerFunc, s ...Scope) {
	r.Handle(http.MethodPut+" "+path, h, s...)
}

// Patch registers h for PATCH path.
func (r *Routes) Patch(path string, h plinth.HandlerFunc, s ...Scope) {
	r.Handle(http.MethodPatch+" "+path, h, s...)
}

// Delete registers h for DELETE path.
func (r *Routes) Delete(path string, h plinth.HandlerFunc, s ...Scope) {
	r.Handle(http.MethodDelete+" "+path, h, s...)
}

// warnCatchAll logs a warning for a pattern whose path ends in "/" under
// a prefix: "POST /" under /orders answers POST /orders/anything, which is
// rarely meant (the prefix itself is "").
func (r *Routes) warnCatchAll(pattern string) {
	prefix := r.router.Prefix()
	path := pattern
	if _, p, ok := strings.Cut(pattern, " "); ok {
		path = strings.TrimLeft(p, " \t")
	}
	if prefix == "" || !strings.HasSuffix(path, "/") || r.log == nil {
		return
	}
	r.log.Warn("module: a route path ending in / under a prefix matches every path below it",
		slog.String("module", r.module.name), slog.String("pattern", pattern),
		slog.String("matches", prefix+path+"..."),
		slog.String("fix", `use "" for `+prefix+` itself, "/{$}" for `+prefix+`/ alone, or "/{path...}" for a catch-all on purpose`))
}

// routeScope joins the scopes given to one route.
func routeScope(s []Scope) Scope {
	var out Scope
	for _, x := range s {
		out.Filters = append(out.Filters, x.Filters...)
		out.Guards = append(out.Guards, x.Guards...)
		out.Middleware = append(out.Middleware, x.Middleware...)
		out.Security = append(out.Security, x.Security...)
	}
	return out
}
