package module

import (
	"context"
	"reflect"
	"slices"
	"strings"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
)

// A Module is a unit of the application: the providers it makes, the
// modules whose exports it uses, the provider types it exports, its
// controllers and their route prefix, and the filters, guards and
// middleware (NestJS's interceptors) around its routes. Build it at
// startup, before Mount; a module imported by several others is one
// *Module value, built once.
type Module struct {
	name        string
	prefix      string
	imports     []*Module
	providers   []*provider
	index       map[reflect.Type][]*provider // by type, made at Mount
	exports     []reflect.Type
	controllers []controllerDecl
	scope       Scope
	onStart     []func(context.Context) error
	onStop      []func(context.Context) error
	mounted     bool
}

// New returns an empty module named name (the OpenAPI tag of its
// operations, and the name errors use).
func New(name string) *Module {
	if strings.TrimSpace(name) == "" {
		panic("module: New needs a name")
	}
	return &Module{name: name}
}

// Name returns the module's name.
func (m *Module) Name() string { return m.name }

// SetPrefix sets the path prefix of the module's routes ("/orders");
// default none. It returns m.
func (m *Module) SetPrefix(p string) *Module {
	m.open()
	m.prefix = strings.TrimSuffix(p, "/")
	return m
}

// Import makes the exports of mods visible to m's providers and
// controllers. It returns m.
func (m *Module) Import(mods ...*Module) *Module {
	m.open()
	for _, i := range mods {
		if i == nil {
			panic("module: " + m.name + ": Import(nil)")
		}
		if !slices.Contains(m.imports, i) {
			m.imports = append(m.imports, i)
		}
	}
	return m
}

// Guard adds guards that every route of the module runs before its
// handler (after the module's filters). It returns m.
func (m *Module) Guard(g ...Guard) *Module {
	m.open()
	m.scope.Guards = append(m.scope.Guards, g...)
	return m
}

// Use adds native middleware around every route's handler of the module,
// inside its guards: what NestJS calls interceptors (timing, caching,
// mapping the response). It returns m.
func (m *Module) Use(mw ...plinth.Middleware) *Module {
	m.open()
	m.scope.Middleware = append(m.scope.Middleware, mw...)
	return m
}

// Filter adds error filters around every route of the module, guards
// included. It returns m.
func (m *Module) Filter(f ...Filter) *Module {
	m.open()
	m.scope.Filters = append(m.scope.Filters, f...)
	return m
}

// OnStart adds a hook that the App runs before it accepts connections,
// after the hooks of the modules m imports and of m's own providers (see
// Starter). A failing hook stops start-up. It returns m.
func (m *Module) OnStart(hook func(context.Context) error) *Module {
	m.open()
	m.onStart = append(m.onStart, hook)
	return m
}

// OnStop adds a hook that the App runs during its shutdown, after the
// drain, before the stop hooks of the modules m imports (the reverse of
// start-up), within the grace period. It returns m.
func (m *Module) OnStop(hook func(context.Context) error) *Module {
	m.open()
	m.onStop = append(m.onStop, hook)
	return m
}

func (m *Module) open() {
	if m.mounted {
		panic("module: " + m.name + " is already mounted: declare it completely before Mount")
	}
}

// Guard runs before a handler and refuses the request by returning an
// error (a 403 problem for a role check, say), which the error renderer
// answers; nil lets the request through.
type Guard func(c *plinth.Ctx) error

// Filter is the error renderer of a scope: it sees the error returned
// inside the scope (by a guard, a middleware or the handler) and returns
// nil when it answered the request itself, or an error (the same or
// another) for the enclosing scopes and, in the end, the App's renderer.
type Filter func(c *plinth.Ctx, err error) error

// Scope is what a module, a controller or a route puts around its
// handlers, composed once, at startup: the filters outermost, then the
// guards, then the middleware (NestJS's interceptors), then the handler.
// Scopes nest: the module's wraps the controller's, which wraps the route's.
type Scope struct {
	Filters    []Filter
	Guards     []Guard
	Middleware []plinth.Middleware
	// Security declares, for the OpenAPI document, the schemes the guards
	// check (an API key, a bearer token): the typed operations registered
	// through Routes.API with this scope list them as required, with a 401
	// problem response, and the document's components list each scheme
	// once (api.Group.SetSecurity). A guard that refuses an authenticated
	// caller (a role check answering 403) declares the role in the
	// scheme's Scopes: the operations then list the 403 too. It checks
	// nothing itself. Default none: nothing documented. Other
	// uses of a scope (Routes.Handle, a module's scope) ignore it: their
	// routes are not typed operations.
	Security []api.Security
}

func (s Scope) empty() bool {
	return len(s.Filters) == 0 && len(s.Guards) == 0 && len(s.Middleware) == 0
}

// wrap composes s around h.
func (s Scope) wrap(h plinth.HandlerFunc) plinth.HandlerFunc {
	for _, mw := range slices.Backward(s.Middleware) {
		h = mw(h)
	}
	if len(s.Guards) > 0 {
		h = guarded(slices.Clone(s.Guards), h)
	}
	for _, f := range slices.Backward(s.Filters) {
		h = filtered(f, h)
	}
	return h
}

// middleware returns s as one native middleware.
func (s Scope) middleware() plinth.Middleware {
	return func(next plinth.HandlerFunc) plinth.HandlerFunc { return s.wrap(next) }
}

func guarded(gs []Guard, next plinth.HandlerFunc) plinth.HandlerFunc {
	if len(gs) == 1 {
		g := gs[0]
		return func(c *plinth.Ctx) error {
			if err := g(c); err != nil {
				return err
			}
			return next(c)
		}
	}
	return func(c *plinth.Ctx) error {
		for _, g := range gs {
			if err := g(c); err != nil {
				return err
			}
		}
		return next(c)
	}
}

func filtered(f Filter, next plinth.HandlerFunc) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		if err := next(c); err != nil {
			return f(c, err)
		}
		return nil
	}
}
