package plinth

import (
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/plinth-go/plinth/internal/envconf"
)

// table is an App frozen for serving: the routing tree, composed chains and
// fallbacks. It is immutable once built, except for the Allow cache.
type table struct {
	app       *App
	root      *node
	static    staticIndex
	methods   methodSet
	maxParams int
	defaults  *defaultStack                 // New's layer, nil for Bare
	security  map[*Router]*renderedSecurity // per scope, during Build
	allMask   uint64                        // every method some route registers
	scopes    []*scope                      // innermost first; the App's root scope is last
	logger    *slog.Logger
	trusted   trustedProxies  // App.TrustedProxies or PLINTH_TRUSTED_PROXIES
	forwarded forwardedHeader // the header the trusted proxies write
	onError   func(*Ctx, error)
	onProblem func(*Ctx, *Problem) // App.ProblemWriter, nil for the built-in JSON
	pool      sync.Pool

	allowMu sync.Mutex
	allow   atomic.Pointer[map[uint64][]string] // rendered Allow values by method mask
}

func newTable(a *App) (*table, error) {
	t := &table{app: a, root: &node{}, logger: a.Logger, onError: a.ErrorHandler, onProblem: a.ProblemWriter, security: map[*Router]*renderedSecurity{}}
	if t.logger == nil {
		t.logger = slog.Default()
	}
	if err := t.applySettings(a); err != nil {
		return nil, err
	}
	t.methods = methodSet{names: slices.Clone(a.methods.names), custom: maps.Clone(a.methods.custom)}
	if t.methods.custom == nil {
		t.methods.custom = map[string]int{}
	}
	t.addRoutes(a.routes)
	t.root.sortEdges()
	t.renderAllow()
	t.static.build(t.root)
	for _, g := range sortedScopes(a.scopes) {
		t.scopes = append(t.scopes, newScope(t, g))
	}
	t.scopes = append(t.scopes, newScope(t, a.Router))
	t.security = nil // only needed while composing
	t.pool.New = func() any { return newCtx(t) }
	return t, nil
}

// applySettings takes the App's settings, resolved by Run or Serve, or reads
// them now for an App built without them (a test, a program that serves it
// itself), and builds New's default layer.
func (t *table) applySettings(a *App) error {
	set := a.settings
	if set == nil {
		e := envconf.New(os.LookupEnv)
		s := a.readSettings(e)
		if err := badConfiguration(e.Errs()); err != nil {
			return err
		}
		set = &s
	}
	t.trusted, t.forwarded = set.trusted, set.forwarded
	if a.defaults {
		t.defaults = newDefaultStack(set.skip, set.handlerTimeout, t.logger)
	}
	return nil
}

// addRoutes inserts the registered routes into the tree with their chains
// composed. The routes the tree points to are copies laid out side by side:
// a lookup's last step reads one, and neighbours share cache lines.
func (t *table) addRoutes(registered []*route) {
	routes := make([]route, len(registered))
	for i, reg := range registered {
		routes[i] = *reg
		rt := &routes[i]
		if rt.pat.warn != "" {
			t.logger.Warn(rt.pat.warn)
		}
		t.root.insert(rt, len(t.methods.names))
		t.maxParams = max(t.maxParams, len(rt.names))
		if t.defaults == nil && !hasMiddleware(rt.router) {
			// Nothing runs between serveRoute and the handler, so the
			// oversize check of routeHandler's wrapper moves to serveRoute
			// and the handler is called directly: one call less per request.
			rt.serve, rt.direct = directHandler(rt), true
		} else {
			rt.serve = t.outer(rt.router, compose(rt.router, routeHandler(rt)))
		}
		rt.maxBody = bodyLimitOf(rt.router)
	}
}

// hasMiddleware reports whether g or a group above it has middleware.
func hasMiddleware(g *Router) bool {
	for ; g != nil; g = g.parent {
		if len(g.mws) > 0 {
			return true
		}
	}
	return false
}

// directHandler is routeHandler without the oversize check, for a route
// that serveRoute calls with nothing in between.
func directHandler(rt *route) HandlerFunc {
	h := rt.handler
	if rt.strip > 0 {
		h = stripSegments(rt.strip, h)
	}
	return nativeOf(h, rt)
}

// bodyLimitOf returns the body limit the nearest group that sets one gives
// g's routes, or 0 for the App's default, read per request (Serve may set
// it after Build).
func bodyLimitOf(g *Router) int64 {
	for ; g != nil; g = g.parent {
		if g.bodyLimit != 0 {
			return g.bodyLimit
		}
	}
	return 0
}

// renderAllow renders the Allow value of every endpoint's method set, and
// notes every method some route serves (for OPTIONS *).
func (t *table) renderAllow() {
	allow := map[uint64][]string{}
	t.root.walk(func(e *endpoint) {
		t.allMask |= e.mask
		if _, ok := allow[e.mask]; !ok {
			allow[e.mask] = []string{t.methods.allow(e.mask)}
		}
	})
	t.allow.Store(&allow)
}

// outer wraps h, a handler of g's scope, in the default layer, if the App
// has one.
func (t *table) outer(g *Router, h HandlerFunc) HandlerFunc {
	if t.defaults == nil {
		return h
	}
	sec, ok := t.security[g]
	if !ok {
		sec = securityFor(g)
		t.security[g] = sec
	}
	timeout := t.defaults.timeout
	for r := g; r != nil; r = r.parent {
		if r.handlerTimeout != 0 {
			timeout = max(r.handlerTimeout, 0)
			break
		}
	}
	if t.defaults.skipTimeout {
		timeout = 0
	}
	return t.defaults.wrap(h, sec, timeout)
}

// allowHeader returns the Allow header value for a method mask as a ready
// header slice. Masks of single endpoints are rendered at Build; a union of
// several, met only on a 405 whose path matches more than one pattern shape,
// is rendered once and cached.
func (t *table) allowHeader(mask uint64) []string {
	if v, ok := (*t.allow.Load())[mask]; ok {
		return v
	}
	t.allowMu.Lock()
	defer t.allowMu.Unlock()
	old := *t.allow.Load()
	if v, ok := old[mask]; ok {
		return v
	}
	m := make(map[uint64][]string, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	v := []string{t.methods.allow(mask)}
	m[mask] = v
	t.allow.Store(&m)
	return v
}
