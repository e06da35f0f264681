package plinth

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// App is a Plinth application: a router with its middleware, fallbacks and
// state. It is an http.Handler. Register everything, then serve; the first
// request (or Build) composes every route's chain once, and registration after
// that panics.
type App struct {
	*Router

	// Logger receives errors that cannot be sent to the client (an unknown
	// error's text, an error after the response started). Nil means
	// slog.Default(). Read once, at Build.
	Logger *slog.Logger

	// ErrorHandler turns an error returned by a handler into a response. Nil
	// means DefaultErrorHandler: RFC 9457 problem JSON, where an error that
	// is not a *Problem becomes a 500 whose text is logged, never sent. It is
	// only called while nothing has been written; an error after the response
	// started is logged instead. Read once, at Build.
	ErrorHandler func(c *Ctx, err error)

	// ProblemWriter writes a *Problem as the response, in place of the
	// built-in RFC 9457 JSON, on every path that answers with one: errors
	// that handlers and middleware return (through DefaultErrorHandler),
	// the 404 and 405 fallbacks, the 413, 408 and 400 of a request body
	// that could not be read, the recovery layer's 500 and the handler
	// timeout's 503; not the health probes, which answer orchestrators
	// before routing. HTML error pages (web.NewErrorPages) are one. Nil
	// means Ctx.WriteProblemJSON, which a custom writer calls to fall back
	// to it (for clients that want JSON, or when its own rendering fails).
	//
	// It is called only while the response has not started, and must write
	// one, with p.StatusCode() as its status; headers already set (Allow on
	// a 405, Retry-After on a maintenance 503, the security headers) stay
	// unless it removes them. p is shared by other requests (the 404 and
	// 405 fallbacks pass the same *Problem each time): read it, do not
	// modify or keep it. Problem.TitleText and Ctx.RequestID give what a
	// page shows. Cost when nil: one pointer comparison per problem. Read
	// once, at Build.
	ProblemWriter func(c *Ctx, p *Problem)

	// HandlerTimeout bounds each handler of an App made by New: at the
	// deadline its context is cancelled and its writes fail; a response not
	// yet started becomes a 503 problem, one already started is aborted. 0
	// means DefaultHandlerTimeout (30s), Off (any negative value) switches
	// it off; PLINTH_HANDLER_TIMEOUT overrides it ("0" off) and groups
	// override it with Router.SetHandlerTimeout. Read once, at Build.
	HandlerTimeout time.Duration

	// TrustedProxies lists the peers (CIDR prefixes; a single address is a
	// /32 or /128) whose forwarding headers are believed: Forwarded,
	// X-Forwarded-For and X-Forwarded-Proto. Ctx.ClientIP and Ctx.Secure
	// read them, and so does the default layer's Strict-Transport-Security
	// (sent over TLS, or when a trusted proxy says the client used HTTPS).
	// Default none: forwarding headers are ignored. PLINTH_TRUSTED_PROXIES
	// (comma-separated) replaces it; a bad value fails Build. Read once, at
	// Build.
	TrustedProxies []netip.Prefix

	// ForwardedHeader names the header the trusted proxies write, the only
	// one believed: "X-Forwarded-For" (the default; the client from
	// X-Forwarded-For, the scheme from X-Forwarded-Proto), as nginx, HAProxy
	// and most cloud load balancers write, or "Forwarded" (RFC 7239: for=
	// and proto=). The other is ignored, so that a client cannot add the
	// header its proxy does not write and have it believed.
	// PLINTH_FORWARDED_HEADER overrides it; another value fails startup.
	// Read once, at Build.
	ForwardedHeader string

	// Config configures Run and Serve; its zero value means the defaults,
	// and PLINTH_* environment variables override it. See Config.
	Config Config

	mu      sync.Mutex
	routes  []*route
	index   routingIndex // the registered patterns, for conflict checks
	scopes  []*Router
	methods methodSet
	state   any
	built   atomic.Pointer[table]
	// settings, resolved by Run or Serve before they build the App (with
	// every bad value reported in their error); nil: Build resolves them.
	settings *settings
	envNames []string // PLINTH_* names declared with DeclareEnv

	defaults        bool         // New: the default layer wraps every route and fallback
	defaultMaxBody  atomic.Int64 // body limit of routes whose groups set none
	bodyReadTimeout atomic.Int64 // Config.BodyReadTimeout once served, 0 for none
	minBodyRate     atomic.Int64 // Config.MinBodyRate once served
	health          health
	startHooks      []func(context.Context) error
	stopHooks       []func(context.Context) error
	openAPI         func() ([]byte, error) // SetOpenAPI, for PLINTH_INSPECT
	inspections     map[string]Inspection  // AddInspection, for PLINTH_INSPECT
	drainCh         chan struct{}
	drainOnce       sync.Once
	sse             sseRegistry // open event streams, ended by the drain
}

// route is one registered pattern and, once built, its composed chain.
type route struct {
	pat     *pattern
	method  int      // method id, -1 for every method
	names   []string // wildcard name of each captured value
	router  *Router
	handler http.Handler
	strip   int // Mount: number of prefix segments to strip
	serve   HandlerFunc
	maxBody int64 // request body limit: 0 the App's default, < 0 none
	direct  bool  // serve is the handler alone: serveRoute refuses an oversize body itself
}

// New returns an App with Plinth's production defaults: request bodies
// limited to DefaultMaxBodyBytes (2 MiB) until Serve applies its Config, and
// one fused layer around every route and fallback that recovers panics (a 500
// problem carrying the request ID, the stack logged), assigns request IDs
// (a well-formed incoming X-Request-ID is kept, otherwise a sortable
// 26-character ID is generated; echoed on the response) and writes helmet's
// security headers from pre-rendered values (HSTS over TLS only), and bounds
// each handler by HandlerTimeout (30s: context cancelled, then a 503 problem,
// or the connection aborted if the response had started). The layer costs
// no allocation per request, amortized: generated IDs are cut from a block
// allocated once per 32 requests, and the timeout's context is reused unless
// the handler took it (Ctx.Context, Ctx.Request: then one allocation); the
// request copy carrying that context is made only for handlers that ask for
// the request (TestDefaultStackAllocations).
// PLINTH_SKIP_MIDDLEWARE=recover,requestid,security,timeout drops parts of it
// for profiling.
func New() *App {
	a := newApp()
	a.defaultMaxBody.Store(DefaultMaxBodyBytes)
	a.defaults = true
	return a
}

// Bare returns an App that only routes: no middleware, no body limit unless
// Serve or Run applies Config.MaxBodyBytes, the default problem JSON
// fallbacks.
func Bare() *App { return newApp() }

func newApp() *App {
	a := &App{methods: newMethodSet(), drainCh: make(chan struct{})}
	a.Router = &Router{app: a, scoped: true}
	return a
}

// SetState stores the application state that State returns to handlers. Call
// it before serving; a pointer is the natural value (State then costs one
// type assertion and no allocation).
func (a *App) SetState(v any) {
	a.mustBeOpen()
	a.state = v
}

// State returns the App's state as a T. It panics if the state set with
// SetState is not a T, which is a programming error found by the first
// request of any test.
func State[T any](c *Ctx) T {
	v, ok := c.app.state.(T)
	if !ok {
		panic("plinth: State: the App's state is not of the requested type")
	}
	return v
}

func (a *App) mustBeOpen() {
	if a.built.Load() != nil {
		panic("plinth: the App is already built (serving); register routes, middleware and state before the first request")
	}
}

// Build composes every route's middleware chain and the routing tree. The
// first request does it if Build was not called; calling it at startup moves
// that work (and any panic it raises) out of the first request. It is safe to
// call more than once.
func (a *App) Build() {
	if a.built.Load() != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.built.Load() != nil {
		return
	}
	t, err := newTable(a)
	if err != nil {
		// Run and Serve report bad settings as their error before they
		// build; only a direct Build (or a first request) gets here.
		panic(err.Error())
	}
	a.built.Store(t)
}

// ServeHTTP routes r. See Handle for the matching rules. Paths that are not
// clean ("//", "." or "..") and paths that only match with a trailing slash
// added are redirected with 307, as ServeMux does; a path that matches routes
// of other methods gets 405 with Allow, or, for OPTIONS, 204 with Allow.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t := a.built.Load()
	if t == nil {
		a.Build()
		t = a.built.Load()
	}
	c := t.pool.Get().(*Ctx)
	c.reset(w, r)
	if r.ContentLength == 0 || r.Body == nil {
		// Without a body (the server gives such requests http.NoBody) a
		// panicking chain leaves finish nothing to do: no body to cut, no
		// multipart files. So the common path pays for no deferred call.
		t.dispatch(c)
	} else {
		t.dispatchFinishing(c)
	}
	if c.sse != nil {
		c.endSSE() // a direct route (no chain around the handler)
	}
	if c.rw.sec != nil {
		c.secureIfSilent()
	}
	if c.body != nil || c.cutBody || len(c.handed) > 0 {
		c.finish()
	}
	c.release()
	t.pool.Put(c)
}

// dispatchFinishing is dispatch for a request with a body: when the chain
// panics (http.ErrAbortHandler, a Bare App), the body is still cut and the
// multipart files removed; the Ctx is then dropped, not pooled.
func (t *table) dispatchFinishing(c *Ctx) {
	done := false
	defer func() {
		if !done {
			c.finish()
		}
	}()
	t.dispatch(c)
	done = true
}

// RouteInfo describes one registered route.
type RouteInfo struct {
	Method  string // "" when the route serves every method
	Pattern string // the full pattern as registered, group prefix included
	Handler string // the handler's function or type name
	Source  string // file:line of the registration
}

// Routes lists every registered route in registration order.
func (a *App) Routes() []RouteInfo {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]RouteInfo, 0, len(a.routes))
	for _, rt := range a.routes {
		out = append(out, RouteInfo{
			Method:  rt.pat.method,
			Pattern: rt.pat.str,
			Handler: handlerName(rt.handler),
			Source:  rt.pat.loc,
		})
	}
	return out
}

// sortedScopes returns the prefixed groups, most segments first and, among
// prefixes of as many segments, the more specific first (a literal segment
// before a wildcard at the first place they differ: /users/me before
// /users/{id}), so that the first whose prefix matches a path is the
// innermost, most specific scope of that path.
func sortedScopes(gs []*Router) []*Router {
	out := slices.Clone(gs)
	slices.SortStableFunc(out, func(x, y *Router) int {
		if d := len(y.segs) - len(x.segs); d != 0 {
			return d
		}
		for i := range x.segs {
			if x.segs[i].wild != y.segs[i].wild {
				if x.segs[i].wild {
					return 1
				}
				return -1
			}
		}
		return 0
	})
	return out
}
