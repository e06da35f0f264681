package plinth

import (
	"context"
	"net/http"
	"reflect"
	"strings"

	"github.com/plinth-go/plinth/internal/funcname"
)

// compose wraps h in the middleware of g and of its ancestors, the App's
// outermost. It runs once per route and per fallback, at Build.
func compose(g *Router, h HandlerFunc) HandlerFunc {
	var chain []*Router
	for r := g; r != nil; r = r.parent {
		chain = append(chain, r)
	}
	for _, r := range chain { // innermost router first
		for i := len(r.mws) - 1; i >= 0; i-- {
			if m := r.mws[i]; m.native != nil {
				h = m.native(h)
			} else {
				h = adaptStd(m.std, h)
			}
		}
	}
	return h
}

// routeHandler returns rt's handler in native form, Mount's prefix stripping
// included.
func routeHandler(rt *route) HandlerFunc {
	h := rt.handler
	if rt.strip > 0 {
		h = stripSegments(rt.strip, h)
	}
	return refuseOversize(nativeOf(h, rt))
}

// nativeOf returns h itself if it is a HandlerFunc, else an adapter that calls
// it as a plain http.Handler, with the request's path values and Pattern set
// from the route rt (nil for fallbacks).
func nativeOf(h http.Handler, rt *route) HandlerFunc {
	switch f := h.(type) {
	case HandlerFunc:
		return f
	case namedHandler:
		return f.h
	}
	return func(c *Ctx) error {
		r := c.requestWithCtx()
		if rt != nil {
			r.Pattern = rt.pat.str
			for i, name := range rt.names {
				if name != "" {
					r.SetPathValue(name, c.vals[i])
				}
			}
		}
		h.ServeHTTP(c.w, r)
		return nil
	}
}

// adaptStd runs a standard middleware around the native chain next. The
// native handler inside finds its Ctx in the request context (put there once
// per request), and uses the writer and request the middleware passed on,
// which may be wrappers. Errors from next are rendered inside the middleware,
// so that it sees the final status.
func adaptStd(mw func(http.Handler) http.Handler, next HandlerFunc) HandlerFunc {
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := CtxOf(r)
		if c == nil {
			// The middleware replaced the request context with one that does
			// not derive from the one it was given.
			http.Error(w, "plinth: middleware dropped the request context", http.StatusInternalServerError)
			return
		}
		c.serveAs(w, r, next)
	})
	wrapped := mw(inner)
	if wrapped == nil {
		panic("plinth: a middleware returned a nil handler")
	}
	return func(c *Ctx) error {
		wrapped.ServeHTTP(c.w, c.requestWithCtx())
		return nil
	}
}

// serveAs runs h on c with w and r, which a plain wrapper (standard
// middleware, Mount's prefix stripping) passed on, in place of the Ctx's
// writer and request; an error is rendered there, so that the wrapper sees
// the final status. r derives from a request the Ctx handed out, so it
// already carries the handler timeout's context.
func (c *Ctx) serveAs(w http.ResponseWriter, r *http.Request, h HandlerFunc) {
	w0, r0, dl0 := c.w, c.req, c.reqDL
	c.w, c.req, c.reqDL = w, r, true
	if r != r0 {
		c.handOut(r)
	}
	if err := h(c); err != nil {
		c.handleError(err)
	}
	c.w, c.req, c.reqDL = w0, r0, dl0
}

type ctxKey struct{}

// ctxRef is the context value through which CtxOf finds a request's Ctx:
// the Ctx, and the request of the Ctx it was made for (Ctx.gen), so that
// once that request's handler returned (its Ctx back in the pool, perhaps
// serving another client) CtxOf gives nil rather than another request's
// Ctx.
type ctxRef struct {
	context.Context
	c   *Ctx
	gen uint64
}

func (r *ctxRef) Value(key any) any {
	if key == (ctxKey{}) {
		return r
	}
	return r.Context.Value(key)
}

// ctxIn returns the Ctx that ctx carries while its request is in flight,
// or nil.
func ctxIn(ctx context.Context) *Ctx {
	ref, _ := ctx.Value(ctxKey{}).(*ctxRef)
	if ref == nil || ref.c.gen.Load() != ref.gen {
		return nil
	}
	return ref.c
}

// CtxOf returns the Ctx of a request served by Plinth, from a plain
// http.Handler route or a standard middleware, or nil. Once the request's
// handler has returned it returns nil, on either engine: the Ctx is pooled
// and serves other requests after that, so it must not be kept; a
// goroutine that outlives its handler reads what it needs before, or from
// the request itself.
func CtxOf(r *http.Request) *Ctx {
	return ctxIn(r.Context())
}

// requestWithCtx returns the request carrying c in its context, making that
// request on first use in this request (two allocations).
func (c *Ctx) requestWithCtx() *http.Request {
	if !c.inCtx {
		c.referenced = true
		c.req = c.req.WithContext(&ctxRef{Context: c.Context(), c: c, gen: c.gen.Load()})
		c.handOut(c.req)
		c.inCtx = true
		c.reqDL = true // c.Context() included the deadline, if any
	}
	return c.req
}

// stripSegments removes the first n segments of the request path (the
// mount prefix) before calling h, as http.StripPrefix does for a literal
// prefix.
func stripSegments(n int, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r2 := new(http.Request)
		*r2 = *r
		u := *r.URL
		u.Path = cutSegments(u.Path, n)
		if u.RawPath != "" {
			u.RawPath = cutSegments(u.RawPath, n)
		}
		r2.URL = &u
		if c := CtxOf(r); c != nil {
			c.handOut(r2)
		}
		h.ServeHTTP(w, r2)
	})
}

func cutSegments(p string, n int) string {
	for i := 0; i < n && p != ""; i++ {
		j := strings.IndexByte(p[1:], '/')
		if j < 0 {
			return "/"
		}
		p = p[j+1:]
	}
	if p == "" {
		return "/"
	}
	return p
}

func handlerName(h http.Handler) string {
	switch f := h.(type) {
	case namedHandler:
		return f.name
	case HandlerFunc:
		return funcname.Of(f)
	case http.HandlerFunc:
		return funcname.Of(f)
	}
	return reflect.TypeOf(h).String()
}

// NamedHandler returns h under name: App.Routes, and so `plinth routes`,
// list the route's handler as name rather than as the function's generated
// name (pkg.register.func1 for a closure made by a library). The route is
// served by h itself, on the native path, at no cost per request. The api
// package names each typed operation so (its operation ID and the
// handler's function).
func NamedHandler(name string, h HandlerFunc) http.Handler {
	if h == nil {
		panic("plinth: NamedHandler: nil handler for " + name)
	}
	return namedHandler{name: name, h: h}
}

// namedHandler is NamedHandler's handler.
type namedHandler struct {
	name string
	h    HandlerFunc
}

func (n namedHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { n.h.ServeHTTP(w, r) }
