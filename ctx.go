package plinth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/plinth-go/plinth/internal/httpsyntax"
)

// HandlerFunc is Plinth's native handler. A returned error becomes the
// response through the App's error renderer (see Problem), unless the
// response has already started, in which case it is logged.
//
// A HandlerFunc is also an http.Handler, so it can be given to Handle or
// used outside Plinth; the router recognises it and calls it directly.
type HandlerFunc func(c *Ctx) error

// ServeHTTP runs h. Inside a Plinth App, where h was wrapped by a plain
// handler (Mount's prefix stripping, http.StripPrefix, a standard
// middleware), it uses the request's Ctx with w and r in place, so the route,
// path values, request ID and the App's ErrorHandler stay in effect. Outside
// Plinth it runs with a fresh Ctx (no path values) and the built-in error
// renderer.
func (h HandlerFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c := CtxOf(r); c != nil {
		c.serveAs(w, r, h)
		return
	}
	c := newCtx(nil)
	c.reset(w, r)
	if err := h(c); err != nil {
		c.handleError(err)
	}
	c.endSSE()
}

// Ctx is the request context of a native handler: the request, the response
// writer, the matched route and its path values, and response helpers.
//
// A Ctx is pooled and reused by the next request as soon as the handler
// returns: it must not be kept, or used from another goroutine, after the
// handler (and its middleware) returned. Copy out what a goroutine needs.
type Ctx struct {
	w     http.ResponseWriter // where handlers write: rw, or a middleware's wrapper
	req   *http.Request
	rw    responseWriter
	t     *table
	app   *App
	route *route
	vals  []string // captured path values, by the route's slots
	nvals int
	inCtx bool // req carries this Ctx in its context
	// gen counts the requests of this Ctx that handed out a request
	// carrying it (referenced): CtxOf on such a request gives nil once gen
	// has moved on (see ctxRef).
	gen        atomic.Uint64
	referenced bool

	// dl is the deadline context of the timeout in force, nil for none. The
	// request carrying it is made on first use (reqDL then true): handlers
	// that never ask for the request or its context save the copy.
	dl    *deadlineCtx
	reqDL bool

	requestID string     // set by the request ID layer
	ids       idSource   // room for generated request IDs
	remote    string     // the connection's RemoteAddr, whatever middleware does to the request
	client    netip.Addr // ClientIP, once clientSet
	clientSet bool
	nonce     string       // set by CSPNonce
	log       ctxLog       // Logger's handler and logger, made once per pooled Ctx
	locals    []localValue // values set through a Key, dropped at release
	timeout   timeoutState
	location  string     // target of a fallback redirect
	sse       *SSEStream // the stream SSE opened, ended when the handler returns

	// The request body, when it has one (see guardBody).
	orig         *http.Request // the request net/http gave
	body         *bodyReader   // the wrapper handlers read, nil for none
	bodyLimit    int64         // the limit in force, 0 for none
	bodyOversize bool          // declared length over the limit: refused
	cutBody      bool          // a fallback answered: the body is never read
	// handed lists the request copies handed out (to handlers, middleware,
	// ParseMultipartForm callers), whose multipart files are removed when
	// the request ends: net/http only cleans up the request it made.
	handed []*http.Request

	buf     bytes.Buffer  // JSON encoding
	enc     *json.Encoder // writes to buf
	out     []byte        // problem documents
	scratch []byte        // path with slash added, during routing
}

// maxPooledBuffer is the capacity above which a Ctx drops its buffers
// instead of keeping them in the pool.
const maxPooledBuffer = 64 << 10

func newCtx(t *table) *Ctx {
	c := &Ctx{t: t}
	c.rw.ctx = c
	c.rw.drain = &neverDraining
	if t != nil {
		c.app = t.app
		c.vals = make([]string, t.maxParams)
		c.rw.drain = &t.app.health.draining
	}
	c.enc = json.NewEncoder(&c.buf)
	return c
}

func (c *Ctx) reset(w http.ResponseWriter, r *http.Request) {
	c.rw.w, c.rw.status, c.rw.size, c.rw.sec = w, 0, 0, nil // rw.drain and rw.ctx are set once, in newCtx
	// A load first: a locked exchange on every request costs more than
	// the rest of reset.
	if c.rw.timedOut.Load() {
		c.rw.timedOut.Store(false)
	}
	c.w = &c.rw
	c.req = r
	c.orig = r
	c.remote = r.RemoteAddr
}

// finish ends the request's use of its body, also when the chain panicked:
// a body that nobody will read is cut (see cutUnreadBody), and the multipart
// files of every request copy handed out are removed.
func (c *Ctx) finish() {
	switch {
	case c.body != nil && c.body.eof:
	case c.cutBody || c.bodyOversize || c.body != nil && c.body.err != nil:
		cutUnreadBody(c.rw.w)
	case c.body != nil && c.body.paced:
		// A handler that answered without reading its body to the end:
		// net/http discards the rest (up to 256 KiB) before the answer goes
		// out, at the client's pace; bound that too.
		c.body.cut()
	}
	if len(c.handed) > 0 {
		c.removeForms()
	}
}

// handOut records a request copy that code outside the router may parse.
func (c *Ctx) handOut(r *http.Request) {
	if r != c.orig {
		c.handed = append(c.handed, r)
	}
}

// removeForms removes the temporary files of multipart forms parsed on the
// request copies handed out. Copies made after the parse share its form;
// removing twice is harmless.
func (c *Ctx) removeForms() {
	for i, r := range c.handed {
		if f := r.MultipartForm; f != nil && f != c.orig.MultipartForm {
			_ = f.RemoveAll()
		}
		c.handed[i] = nil
	}
	c.handed = c.handed[:0]
}

func (c *Ctx) release() {
	// c.vals is not cleared: values are only read below nvals, which the
	// next lookup sets, and what the stale strings keep alive (pieces of an
	// earlier path) is small and dropped with the pool at the next GC, while
	// the clear showed up in CPU profiles of the routing benchmarks.
	c.w, c.req, c.orig, c.rw.w = nil, nil, nil, nil
	if c.referenced {
		c.referenced = false
		c.gen.Add(1) // CtxOf on a request this one handed out gives nil from now on
	}
	c.route, c.nvals, c.inCtx, c.clientSet = nil, 0, false, false
	c.body, c.bodyLimit, c.bodyOversize, c.cutBody = nil, 0, false, false
	c.dl, c.reqDL = nil, false
	c.requestID, c.location, c.nonce = "", "", ""
	if len(c.locals) > 0 {
		clear(c.locals)
		c.locals = c.locals[:0]
	}
	if c.buf.Cap() > maxPooledBuffer {
		c.buf = bytes.Buffer{}
	}
	if cap(c.out) > maxPooledBuffer {
		c.out = nil
	}
}

// Request returns the request. Standard middleware may have replaced it on
// its way in; this is the one the handler was given.
func (c *Ctx) Request() *http.Request {
	if c.dl != nil && !c.reqDL {
		c.materializeDeadline()
	}
	return c.req
}

// RawRequest returns the request without making the copy that Request
// makes, under New's handler timeout, to carry the deadline in its
// context: for middleware that reads the method, URL, headers or
// Content-Length on every request (metrics, tracing) at no cost. Its
// Context lacks the handler deadline: use c.Context() for the context,
// and Request for a request to hand on.
func (c *Ctx) RawRequest() *http.Request { return c.req }

// SetContext replaces the request's context with ctx, which should derive
// from c.Context() (a span, a value): one request copy, where
// SetRequest(c.Request().WithContext(ctx)) makes two under New's handler
// timeout. Context, Request and the rest of the chain then see ctx.
func (c *Ctx) SetContext(ctx context.Context) {
	c.req = c.req.WithContext(ctx)
	c.handOut(c.req)
	c.inCtx = ctxIn(ctx) == c
	c.reqDL = true // ctx derives from c.Context(), which carries the deadline
}

// materializeDeadline makes the request carry the handler timeout's context
// (one request copy), on the first call that hands the request out.
func (c *Ctx) materializeDeadline() {
	c.dl.handOut()
	c.req = c.req.WithContext(c.dl)
	c.reqDL = true
	c.handOut(c.req)
}

// Writer returns the response writer. It records the status for the error
// path and supports Flush, Hijack and http.ResponseController.
func (c *Ctx) Writer() http.ResponseWriter { return c.w }

// SetWriter replaces the writer that the rest of the chain (inner middleware
// and the handler) writes to, for native middleware that wraps it: a
// compressor, a recorder. The wrapper should write through the previous
// Writer, so that Status, Written and BytesWritten stay true, and the
// middleware must put the previous writer back before it returns. Errors
// that inner code returns are rendered to the writer in place when they are
// rendered: call WriteError before restoring to send them through the
// wrapper.
func (c *Ctx) SetWriter(w http.ResponseWriter) { c.w = w }

// SetRequest replaces the request that the rest of the chain sees, for native
// middleware that rewrites it (r.WithContext, a changed RemoteAddr). Path
// values and the route stay those of the original request.
func (c *Ctx) SetRequest(r *http.Request) {
	c.req = r
	c.handOut(r)
	c.inCtx = CtxOf(r) == c
	c.reqDL = true // r derives from the request Request handed out
}

// Context returns the request's context: with New's handler timeout (or a
// Timeout layer) in force, the one that ends at its deadline.
func (c *Ctx) Context() context.Context {
	if c.dl != nil && !c.reqDL {
		c.dl.handOut()
		return c.dl
	}
	return c.req.Context()
}

// App returns the App serving the request (nil outside a router).
func (c *Ctx) App() *App { return c.app }

// Param returns the value of the path wildcard name of the matched route,
// unescaped, or "" if the route has no such wildcard. It does not allocate.
func (c *Ctx) Param(name string) string {
	if c.route == nil || name == "" {
		return ""
	}
	for i, n := range c.route.names {
		if n == name {
			return c.vals[i]
		}
	}
	return ""
}

// Pattern returns the matched route's pattern as registered, group prefix
// included (for example "GET /users/{id}"), or "" for a fallback answer.
func (c *Ctx) Pattern() string {
	if c.route == nil {
		return ""
	}
	return c.route.pat.str
}

// PeerAddr returns the address of the connection's remote end, parsed from
// the RemoteAddr the request arrived with (middleware that rewrites
// RemoteAddr, such as middleware.RealIP, does not change it) without
// allocating, or the zero AddrPort if it is not an IP address and port.
// Behind a proxy this is the proxy: the client's address is ClientIP.
func (c *Ctx) PeerAddr() netip.AddrPort {
	ap, err := netip.ParseAddrPort(c.remote)
	if err != nil {
		return netip.AddrPort{}
	}
	return ap
}

// RequestID returns the request's ID, or "" when no request ID layer runs.
func (c *Ctx) RequestID() string { return c.requestID }

// Query returns the first value of the query parameter name, unescaped, or
// "". It reads the raw query without building a map and allocates only to
// unescape. Pairs that url.ParseQuery would reject are skipped.
func (c *Ctx) Query(name string) string {
	v, _ := httpsyntax.LookupQuery(c.req.URL.RawQuery, name)
	return v
}

// QueryValues returns the parsed query (allocates; prefer Query for single
// values).
func (c *Ctx) QueryValues() url.Values { return c.req.URL.Query() }

// Header returns the response header map.
func (c *Ctx) Header() http.Header { return c.w.Header() }

// Status returns the response status written so far, or 0 if the response
// has not started.
func (c *Ctx) Status() int { return c.rw.status }

// BytesWritten returns the number of response body bytes sent so far: what
// reached the server's writer, so after compression by a layer that wraps
// the writer.
func (c *Ctx) BytesWritten() int64 { return c.rw.size }

// WriteError renders err as the response now, through the App's
// ErrorHandler (the built-in problem renderer by default), or logs it if the
// response has already started. Native middleware that must see the final
// status (an access log, a compressor) calls it for an error returned by
// next, and then returns nil. A nil err does nothing.
func (c *Ctx) WriteError(err error) {
	if err != nil {
		c.handleError(err)
	}
}

// TimedOut reports whether the handler timeout (New's, or a Timeout layer)
// has fired for this request: its context is cancelled, its writes are
// refused, and once the chain returns the timeout layer answers 503 (or
// aborts a response that had started). Middleware that logs or measures the
// final status reads it.
func (c *Ctx) TimedOut() bool { return c.rw.timedOut.Load() }

// Written reports whether the response has started.
func (c *Ctx) Written() bool { return c.rw.status != 0 }

// Cookie returns the named request cookie, or http.ErrNoCookie.
func (c *Ctx) Cookie(name string) (*http.Cookie, error) { return c.req.Cookie(name) }

// SetCookie adds a Set-Cookie header. Invalid cookies are dropped, as
// http.SetCookie does.
func (c *Ctx) SetCookie(ck *http.Cookie) { http.SetCookie(c.w, ck) }

// ErrResponseStarted is returned by the response helpers (JSON, Text, HTML,
// Bytes, NoContent, Redirect, RedirectExternal) called after the response
// has started (Written is true), instead of writing a second document after
// the first one under its status. Returned from the handler, it goes the
// way of any error after the response started: logged once, at warn level,
// with the route, and the response already sent stays as it is. A helper
// checks the writer the server gave (see Written): a middleware that
// records the response through SetWriter and sends it later is not a
// started response.
var ErrResponseStarted = errors.New("plinth: the response has already started")

var (
	jsonContentType = []string{"application/json"}
	textContentType = []string{"text/plain; charset=utf-8"}
	htmlContentType = []string{"text/html; charset=utf-8"}
)

// JSON sends v encoded with encoding/json (HTML-safe escaping, a trailing
// newline) with status code and Content-Type application/json. The encoding
// is done in a pooled buffer before anything is written, so an encoding error
// is returned with the response untouched. Pass a pointer: a struct value is
// copied to the heap to become an interface. After the response started it
// writes nothing and returns ErrResponseStarted.
func (c *Ctx) JSON(code int, v any) error {
	if c.rw.status != 0 {
		return ErrResponseStarted
	}
	c.buf.Reset()
	if err := c.enc.Encode(v); err != nil {
		return err
	}
	if c.direct() {
		c.rw.w.Header()["Content-Type"] = jsonContentType
		c.rw.writeHeaderTyped(code, false)
		_, err := c.rw.Write(c.buf.Bytes())
		return err
	}
	c.w.Header()["Content-Type"] = jsonContentType
	c.w.WriteHeader(code)
	_, err := c.w.Write(c.buf.Bytes())
	return err
}

// direct reports whether handlers write to the Ctx's own writer, no
// middleware's wrapper (SetWriter) in between: then a helper that sets the
// Content-Type knows what the response is, without a second look at the
// header.
func (c *Ctx) direct() bool { return c.w == http.ResponseWriter(&c.rw) }

// Text sends s as text/plain; charset=utf-8 with status code, or returns
// ErrResponseStarted after the response started.
func (c *Ctx) Text(code int, s string) error {
	if c.rw.status != 0 {
		return ErrResponseStarted
	}
	if c.direct() {
		c.rw.w.Header()["Content-Type"] = textContentType
		c.rw.writeHeaderTyped(code, false)
		_, err := c.rw.WriteString(s)
		return err
	}
	c.w.Header()["Content-Type"] = textContentType
	c.w.WriteHeader(code)
	_, err := io.WriteString(c.w, s)
	return err
}

// HTML sends s as text/html; charset=utf-8 with status code. s is sent as is:
// escape untrusted data before it reaches here. After the response started
// it returns ErrResponseStarted.
func (c *Ctx) HTML(code int, s string) error {
	if c.rw.status != 0 {
		return ErrResponseStarted
	}
	if c.direct() {
		c.rw.w.Header()["Content-Type"] = htmlContentType
		c.rw.writeHeaderTyped(code, true)
		_, err := c.rw.WriteString(s)
		return err
	}
	c.w.Header()["Content-Type"] = htmlContentType
	c.w.WriteHeader(code)
	_, err := io.WriteString(c.w, s)
	return err
}

// Bytes sends b with the given Content-Type (none if empty) and status
// code. The types of JSON, Text and HTML cost no allocation; another costs
// one. After the response started it returns ErrResponseStarted.
func (c *Ctx) Bytes(code int, contentType string, b []byte) error {
	if c.rw.status != 0 {
		return ErrResponseStarted
	}
	switch contentType {
	case "":
	case htmlContentType[0]:
		c.w.Header()["Content-Type"] = htmlContentType
	case jsonContentType[0]:
		c.w.Header()["Content-Type"] = jsonContentType
	case textContentType[0]:
		c.w.Header()["Content-Type"] = textContentType
	default:
		c.w.Header().Set("Content-Type", contentType)
	}
	c.w.WriteHeader(code)
	_, err := c.w.Write(b)
	return err
}

// NoContent sends the status code with no body, or returns
// ErrResponseStarted after the response started.
func (c *Ctx) NoContent(code int) error {
	if c.rw.status != 0 {
		return ErrResponseStarted
	}
	c.w.WriteHeader(code)
	return nil
}

// ErrUnsafeRedirect is returned (wrapped in a 400 Problem) by Redirect for a
// target that is off-site or could split the response.
var ErrUnsafeRedirect = errors.New("plinth: unsafe redirect target")

// Redirect sends a redirect to target, which must be a path on this site
// ("/login", "../up", "?page=2"): targets with a scheme or host, or that a
// browser reads as one ("//evil.example", "/\evil.example"), and targets with
// control characters are refused with a 400 problem wrapping
// ErrUnsafeRedirect, so user input cannot make an open redirect. The status
// is 400, not 500, because such a target comes from the request (a
// ?next= parameter, a Referer): the client sent something this site will not
// act on, and a client's input must not produce a server error (or an error
// log line per attempt). A constant off-site target in code fails the same
// way on its first test. code must be 3xx (otherwise a 500: that is the
// code's mistake). Use RedirectExternal for off-site targets. After the
// response started it returns ErrResponseStarted.
func (c *Ctx) Redirect(code int, target string) error {
	if err := checkRedirect(code, target); err != nil {
		return err
	}
	if isOffsite(target) {
		return Error(http.StatusBadRequest, "the redirect target is not a path on this site").Wrap(ErrUnsafeRedirect)
	}
	return c.redirect(code, target)
}

// RedirectExternal sends a redirect to any absolute or relative URL, still
// refusing control characters. Never pass unchecked user input.
func (c *Ctx) RedirectExternal(code int, target string) error {
	if err := checkRedirect(code, target); err != nil {
		return err
	}
	return c.redirect(code, target)
}

func (c *Ctx) redirect(code int, target string) error {
	if c.rw.status != 0 {
		return ErrResponseStarted
	}
	c.w.Header()["Location"] = []string{target}
	c.w.WriteHeader(code)
	return nil
}

func checkRedirect(code int, target string) error {
	if code < 300 || code > 399 {
		return Errorf(http.StatusInternalServerError, "redirect status %d is not 3xx", code)
	}
	for i := 0; i < len(target); i++ {
		if b := target[i]; b < 0x20 || b == 0x7f {
			return Error(http.StatusBadRequest, "the redirect target has a control character").Wrap(ErrUnsafeRedirect)
		}
	}
	return nil
}

// isOffsite reports whether a browser could resolve target to another
// origin: it has a scheme, or starts with two slashes or backslashes in any
// mix (browsers treat '\' as '/').
func isOffsite(target string) bool {
	t := strings.TrimLeft(target, " ")
	if len(t) >= 2 && (t[0] == '/' || t[0] == '\\') && (t[1] == '/' || t[1] == '\\') {
		return true
	}
	if i := strings.IndexAny(t, ":/?#"); i > 0 && t[i] == ':' {
		return true // scheme:
	}
	return false
}
