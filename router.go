package plinth

import (
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Router is a scope of routes: the App itself or a group made by Group or
// With. It registers routes, middleware and fallbacks; nothing it records is
// composed until the App is built (by Build or by its first request), so the
// order of Use and route calls does not matter.
//
// A Router must not be used after its App has started serving: registration
// then panics.
type Router struct {
	app    *App
	parent *Router
	prefix string    // full path prefix, "" for the root
	segs   []segment // the prefix parsed
	scoped bool      // owns the fallbacks (404, 405, OPTIONS, redirects) under its prefix
	loc    string    // file:line of the Group call that made it
	mws    []middleware

	notFound         http.Handler
	methodNotAllowed http.Handler
	bodyLimit        int64         // 0: inherit; < 0: none
	handlerTimeout   time.Duration // 0: inherit; < 0: none
	security         []securityEdit
}

// middleware is one entry of a Use list, in either form.
type middleware struct {
	std    func(http.Handler) http.Handler
	native Middleware
}

// Middleware is the native middleware form. It wraps a HandlerFunc and adds no
// allocation of its own unless it makes one; prefer it on hot paths. Use and
// With take it; UseHTTP and WithHTTP take standard func(http.Handler)
// http.Handler middleware.
type Middleware func(next HandlerFunc) HandlerFunc

// Handle registers h for pattern, in Go 1.22 ServeMux syntax:
// "[METHOD ]/path", where a segment may be "{name}", the last segment
// "{name...}" (the rest of the path) or "{$}" (the path ends with a slash here),
// and a trailing slash matches every path below it. The router picks the most
// specific matching pattern, as ServeMux does; a GET pattern also serves HEAD.
//
// If h is a HandlerFunc it is called natively. Any other handler receives a
// request whose PathValue returns the wildcard values and whose Pattern is set;
// that costs the allocations net/http needs to store path values and to carry
// the Ctx in the request context (see CtxOf).
//
// Handle panics if the pattern is invalid, uses a host, or conflicts with a
// pattern already registered (the message names both and where each was
// registered), as ServeMux does.
func (rt *Router) Handle(pattern string, h http.Handler) {
	if h == nil {
		panic(fmt.Sprintf("plinth: nil handler for pattern %q", pattern))
	}
	rt.register(pattern, h, 0)
}

// HandleFunc registers a plain handler function; see Handle.
func (rt *Router) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	if h == nil {
		panic(fmt.Sprintf("plinth: nil handler for pattern %q", pattern))
	}
	rt.register(pattern, http.HandlerFunc(h), 0)
}

// Get registers a native handler for GET (and so HEAD) requests to path.
func (rt *Router) Get(path string, h HandlerFunc) { rt.method("GET", path, h) }

// Head registers a native handler for HEAD requests to path.
func (rt *Router) Head(path string, h HandlerFunc) { rt.method("HEAD", path, h) }

// Post registers a native handler for POST requests to path.
func (rt *Router) Post(path string, h HandlerFunc) { rt.method("POST", path, h) }

// Put registers a native handler for PUT requests to path.
func (rt *Router) Put(path string, h HandlerFunc) { rt.method("PUT", path, h) }

// Patch registers a native handler for PATCH requests to path.
func (rt *Router) Patch(path string, h HandlerFunc) { rt.method("PATCH", path, h) }

// Delete registers a native handler for DELETE requests to path.
func (rt *Router) Delete(path string, h HandlerFunc) { rt.method("DELETE", path, h) }

// Options registers a native handler for OPTIONS requests to path, replacing
// the automatic OPTIONS answer there.
func (rt *Router) Options(path string, h HandlerFunc) { rt.method("OPTIONS", path, h) }

func (rt *Router) method(m, path string, h HandlerFunc) {
	if h == nil {
		panic(fmt.Sprintf("plinth: nil handler for %s %s", m, path))
	}
	if strings.ContainsAny(path, " \t") {
		panic(fmt.Sprintf("plinth: %s(%q): the path must not contain blanks or a method", methodHelperName(m), path))
	}
	rt.register(m+" "+path, h, 0)
}

func methodHelperName(m string) string { return m[:1] + strings.ToLower(m[1:]) }

// Group returns the scope below prefix (a path such as "/api/v1", which may
// hold "{name}" wildcards). Routes registered on it get the prefix; its Use
// middleware wraps its routes and, with its NotFound and MethodNotAllowed, the
// fallback answers to requests under the prefix that match no route. Each fn
// is called with the group, for the block style.
//
// A prefix has one scope: calling Group again with the same prefix on the
// same router returns the same group, so that middleware added through either
// value wraps the routes registered through both (two packages registering
// under "/api/v1" share its API-key check and its fallbacks). The same prefix
// made under another parent (app.Group("/api").Group("/v1") and
// app.Group("/api/v1")), or the same prefix shape with other wildcard names,
// panics naming both Group calls: its routes would run under different
// middleware than its fallbacks.
//
// Group("") makes a group without a prefix: its middleware wraps only the
// routes registered on it, and it cannot have fallbacks.
func (rt *Router) Group(prefix string, fn ...func(*Router)) *Router {
	rt.app.mustBeOpen()
	g := &Router{app: rt.app, parent: rt, prefix: rt.prefix, segs: rt.segs, loc: callerLocation()}
	if prefix != "" {
		p := strings.TrimSuffix(prefix, "/")
		if p == "" {
			panic("plinth: Group(\"/\"): use the parent router or Group(\"\")")
		}
		pat, err := parsePattern(rt.prefix + p)
		if err != nil || strings.ContainsAny(p, " \t") {
			panic(fmt.Sprintf("plinth: bad group prefix %q: %v", prefix, errOr(err, "prefix must be a path")))
		}
		if cleanPath(pat.str) != pat.str {
			panic(fmt.Sprintf("plinth: bad group prefix %q: it is not a clean path", prefix))
		}
		for _, s := range pat.segs {
			if s.multi || s.lit == "/" {
				panic(fmt.Sprintf("plinth: bad group prefix %q: {name...} and {$} cannot be in a prefix", prefix))
			}
		}
		g.prefix = pat.str
		g.segs = pat.segs
		g.scoped = true
		if same := rt.app.scopeWithPrefix(g); same != nil {
			g = same
		} else {
			rt.app.scopes = append(rt.app.scopes, g)
		}
	}
	for _, f := range fn {
		f(g)
	}
	return g
}

// scopeWithPrefix returns the group already made for g's prefix under g's
// parent, or nil when there is none; it panics when the prefix (or one of
// the same shape) belongs to a group under another parent.
func (a *App) scopeWithPrefix(g *Router) *Router {
	for _, s := range a.scopes {
		if !sameShape(s.segs, g.segs) {
			continue
		}
		if s.parent == g.parent && s.prefix == g.prefix {
			return s
		}
		why := "under another parent group"
		if s.prefix != g.prefix {
			why = "with other wildcard names"
		}
		panic(fmt.Sprintf("plinth: the group %q made at %s has the prefix of the group %q made at %s, %s: "+
			"a prefix has one scope (one middleware list, one set of fallbacks), so its routes and its 404s "+
			"would run under different middleware; register on the first group, or nest under it",
			g.prefix, g.loc, s.prefix, s.loc, why))
	}
	return nil
}

// sameShape reports whether two prefixes match the same paths.
func sameShape(x, y []segment) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i].wild != y[i].wild || !x[i].wild && x[i].lit != y[i].lit {
			return false
		}
	}
	return true
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

// Prefix returns the full path prefix of this scope ("" for the App, "/api/v1"
// for a group made by app.Group("/api").Group("/v1")), for packages that
// register routes on a group given to them.
func (rt *Router) Prefix() string { return rt.prefix }

// App returns the App this router belongs to.
func (rt *Router) App() *App { return rt.app }

// With returns a group without a prefix whose native middleware wraps only
// the routes registered through it (route-level middleware): matched routes,
// never the 404 or 405 answers.
func (rt *Router) With(mw ...Middleware) *Router {
	g := rt.Group("")
	g.Use(mw...)
	return g
}

// WithHTTP is With for standard func(http.Handler) http.Handler middleware.
func (rt *Router) WithHTTP(mw ...func(http.Handler) http.Handler) *Router {
	g := rt.Group("")
	g.UseHTTP(mw...)
	return g
}

// Use appends native middleware (see Middleware) to this scope. It wraps
// every route of the scope and of the groups below it, whenever they are
// registered, and, on the App and on prefixed groups, also the scope's
// fallback answers (404, 405, automatic OPTIONS and path redirects).
// Middleware runs in the order it was added (Use and UseHTTP alike), the
// App's first, then each group's down to the route. Native middleware adds
// no allocation of its own.
func (rt *Router) Use(mw ...Middleware) {
	rt.app.mustBeOpen()
	for _, m := range mw {
		if m == nil {
			panic("plinth: Use(nil)")
		}
		rt.mws = append(rt.mws, middleware{native: m})
	}
}

// UseHTTP appends standard func(http.Handler) http.Handler middleware to
// this scope, with the scope and order of Use. A standard middleware costs
// what it allocates plus, once per request, the two allocations that put the
// Ctx into the request's context so that native handlers inside it can find
// it.
func (rt *Router) UseHTTP(mw ...func(http.Handler) http.Handler) {
	rt.app.mustBeOpen()
	for _, m := range mw {
		if m == nil {
			panic("plinth: UseHTTP(nil)")
		}
		rt.mws = append(rt.mws, middleware{std: m})
	}
}

// Mount serves every request under prefix (and, by redirect, prefix itself)
// with h, whatever its method, with the prefix removed from the URL path as
// http.StripPrefix does. h is typically another App or a foreign router.
// Routes registered directly below prefix are more specific and win.
func (rt *Router) Mount(prefix string, h http.Handler) {
	if h == nil {
		panic(fmt.Sprintf("plinth: Mount(%q, nil)", prefix))
	}
	p := strings.TrimSuffix(prefix, "/")
	if p == "" || strings.ContainsAny(p, " \t") {
		panic(fmt.Sprintf("plinth: Mount(%q): the prefix must be a path below /", prefix))
	}
	n := strings.Count(rt.prefix+p, "/")
	rt.register(p+"/", h, n)
}

// SetBodyLimit sets the request body limit of this group's routes (and of
// groups below it that set none) to n bytes; Off (any negative value)
// removes the limit, and 0 means the default, as in Config: the limit of the
// enclosing group, else Config.MaxBodyBytes (2 MiB by default). A body
// whose Content-Length exceeds the limit is refused with a 413 problem before
// the handler runs; a body without a length fails its Read past the limit
// with *http.MaxBytesError, which the renderer turns into 413 too.
func (rt *Router) SetBodyLimit(n int64) {
	rt.app.mustBeOpen()
	rt.bodyLimit = max(n, Off)
}

// SetHandlerTimeout sets the handler timeout of New's default layer for this
// group's routes (and groups below it that set none) to d; Off (any negative
// value) switches it off, for long-lived responses such as WebSocket or
// server-sent events, and 0 means the default, as in Config: the timeout of
// the enclosing group, else App.HandlerTimeout (30s by default).
func (rt *Router) SetHandlerTimeout(d time.Duration) {
	rt.app.mustBeOpen()
	rt.handlerTimeout = max(d, Off)
}

// SetNotFound sets the handler for requests in this scope that match no route.
// The default answers 404 with an RFC 9457 problem JSON body. It panics on a
// group without a prefix, which has no scope of its own. SetNotFoundHTTP
// takes a net/http handler instead.
func (rt *Router) SetNotFound(h HandlerFunc) {
	rt.mustHaveScope("SetNotFound")
	rt.notFound = nil // nil: the enclosing scope's handler, else the default
	if h != nil {
		rt.notFound = h
	}
}

// SetNotFoundHTTP is SetNotFound with a net/http handler.
func (rt *Router) SetNotFoundHTTP(h http.Handler) {
	rt.mustHaveScope("SetNotFoundHTTP")
	rt.notFound = h
}

// SetMethodNotAllowed sets the handler for requests in this scope whose path
// matches routes but whose method does not. The Allow header is set before it
// runs. The default answers 405 with a problem JSON body.
// SetMethodNotAllowedHTTP takes a net/http handler instead.
func (rt *Router) SetMethodNotAllowed(h HandlerFunc) {
	rt.mustHaveScope("SetMethodNotAllowed")
	rt.methodNotAllowed = nil // nil: the enclosing scope's handler, else the default
	if h != nil {
		rt.methodNotAllowed = h
	}
}

// SetMethodNotAllowedHTTP is SetMethodNotAllowed with a net/http handler.
func (rt *Router) SetMethodNotAllowedHTTP(h http.Handler) {
	rt.mustHaveScope("SetMethodNotAllowedHTTP")
	rt.methodNotAllowed = h
}

func (rt *Router) mustHaveScope(what string) {
	rt.app.mustBeOpen()
	if !rt.scoped {
		panic(fmt.Sprintf("plinth: %s on a group without a prefix: set it on the App or a prefixed group", what))
	}
}

func (rt *Router) register(pat string, h http.Handler, strip int) {
	a := rt.app
	a.mustBeOpen()
	full := pat
	if rt.prefix != "" {
		method, path, ok := strings.Cut(pat, " ")
		if !ok {
			method, path = "", pat
		}
		path = strings.TrimLeft(path, " \t")
		if path != "" && path[0] != '/' {
			panic(fmt.Sprintf("plinth: bad pattern %q in group %q: the path must start with '/' or be empty (the prefix itself)", pat, rt.prefix))
		}
		full = rt.prefix + path
		if ok {
			full = method + " " + full
		}
	}
	p, err := parsePattern(full)
	if err != nil {
		panic(fmt.Sprintf("plinth: bad pattern %q: %v", full, err))
	}
	p.loc = callerLocation()
	p.warn = methodCaseWarning(p)
	if p.warn == "" {
		p.warn = ginStyleWarning(p)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.index.candidates(p, func(old *pattern) {
		if rel := compare(p, old); rel == equal || rel == overlapped {
			panic("plinth: " + conflictError(p, old).Error())
		}
	})
	a.index.add(p)
	r := &route{pat: p, router: rt, handler: h, strip: strip, names: p.wildcardSlots()}
	if p.method != "" {
		r.method = a.methods.id(p.method, true)
	} else {
		r.method = -1
	}
	a.routes = append(a.routes, r)
}

// callerLocation returns file:line of the first caller outside the
// framework: the user's registration, not the framework code (the api
// package, a module layer) that registered on its behalf.
func callerLocation() string {
	// One frame at a time: the user's call is usually three or four frames
	// up, and runtime.Caller unwinds no further than asked.
	for skip := 2; skip < 64; skip++ {
		_, file, line, ok := runtime.Caller(skip)
		if !ok {
			break
		}
		if !inFramework(file) {
			return file + ":" + strconv.Itoa(line)
		}
	}
	return "unknown"
}

// frameworkRoot is the directory of the plinth module's source.
var frameworkRoot = func() string {
	_, file, _, _ := runtime.Caller(0)
	return file[:strings.LastIndexByte(file, '/')+1]
}()

// inFramework reports whether file is framework code: below the module's
// root, not a test file, and not in examples/ or bench/ (user code that
// happens to live in the repository).
func inFramework(file string) bool {
	rel, ok := strings.CutPrefix(file, frameworkRoot)
	if !ok || strings.HasSuffix(rel, "_test.go") {
		return false
	}
	for _, dir := range [...]string{"examples/", "bench/", "testdata/"} {
		if strings.HasPrefix(rel, dir) {
			return false
		}
	}
	return true
}

// methodCaseWarning returns a warning for a pattern whose method is a
// standard method in another case ("get /users"): methods are
// case-sensitive, as in ServeMux, so the route serves requests whose method
// is literally "get" and a GET there gets 405; "" when the method is fine.
func methodCaseWarning(p *pattern) string {
	if p.method == "" || stdMethodID(p.method) >= 0 {
		return ""
	}
	upper := strings.ToUpper(p.method)
	if stdMethodID(upper) < 0 {
		return ""
	}
	return fmt.Sprintf("plinth: pattern %q (%s) has the method %q; methods are case-sensitive, so %s requests get 405 there; write %q",
		p.str, p.loc, p.method, upper, upper+p.str[len(p.method):])
}

// ginStyleWarning returns a warning for a pattern with a segment in another
// router's wildcard syntax (":id", "*path"), which ServeMux syntax, and so
// Plinth, matches literally; "" when there is none.
func ginStyleWarning(p *pattern) string {
	for _, s := range p.segs {
		if s.wild || s.multi || len(s.lit) < 2 || s.lit[0] != ':' && s.lit[0] != '*' {
			continue
		}
		want := "{" + s.lit[1:] + "}"
		if s.lit[0] == '*' {
			want = "{" + s.lit[1:] + "...}"
		}
		return fmt.Sprintf("plinth: pattern %q (%s) has the segment %q, which ServeMux syntax matches literally; for a wildcard write %q",
			p.str, p.loc, s.lit, want)
	}
	return ""
}
