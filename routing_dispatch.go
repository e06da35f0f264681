package plinth

import (
	"net/http"
	"net/url"
	pathpkg "path"
	"strings"
	"unsafe"
)

// dispatch routes one request; c has been reset for it.
//
// The common request (a decoded path with no escapes that matter, a method
// other than CONNECT) takes the fast lookup, and a route it finds without
// a multi wildcard in a path it saw whole is served at once: the path is
// clean and no redirect applies. Everything else goes on in dispatchTail,
// or in dispatchGeneric for the requests the fast lookup cannot serve.
func (t *table) dispatch(c *Ctx) {
	r := c.req
	path := r.URL.Path
	if r.URL.RawPath == "" && path != "" && path[0] == '/' && r.RequestURI != "*" {
		m := matcher{vals: c.vals, method: stdMethodID(r.Method)}
		if m.method < 0 && len(t.methods.custom) > 0 {
			m.method = t.methods.id(r.Method, false)
		}
		if m.method != mCONNECT {
			m.head = m.method == mHEAD
			var rt *route
			if e := t.static.get(path); e != nil {
				rt = m.accept(e)
			}
			if rt == nil {
				rt = t.root.find(path, &m)
			}
			if rt != nil && !m.multi && !m.unclean {
				t.serveRoute(c, rt, m.n)
				return
			}
			t.dispatchTail(c, path, path, &m, rt, false)
			return
		}
	}
	t.dispatchGeneric(c)
}

// dispatchGeneric routes a request the fast lookup does not serve: "*", an
// escaped path, a CONNECT request, a path that is not rooted.
func (t *table) dispatchGeneric(c *Ctx) {
	r := c.req
	if r.RequestURI == "*" {
		t.serveAsterisk(c)
		return
	}
	m := matcher{vals: c.vals, method: -1, generic: true}
	path := r.URL.Path
	if r.URL.RawPath != "" {
		// The path holds escapes that matter (such as %2F): match the escaped
		// form segment by segment, as ServeMux does.
		path = r.URL.EscapedPath()
		m.escaped = true
	}
	m.method = stdMethodID(r.Method)
	if m.method < 0 && len(t.methods.custom) > 0 {
		m.method = t.methods.id(r.Method, false)
	}
	m.head = m.method == mHEAD
	connect := m.method == mCONNECT
	clean := path
	if !connect {
		clean = cleanPath(path) // CONNECT paths are matched as they are
	}
	rt := t.root.lookup(clean, &m)
	t.dispatchTail(c, path, clean, &m, rt, connect)
}

// dispatchTail answers a request after its first lookup, which found rt
// (or nil) for clean, the path as looked up: it looks an unclean path up
// again cleaned, redirects, serves rt or answers the miss.
func (t *table) dispatchTail(c *Ctx, path, clean string, m *matcher, rt *route, connect bool) {
	r := c.req
	if !m.generic && (m.unclean || (rt == nil || m.multi) && !isCleanPath(path)) {
		// The fast lookup saw every segment of a path it matched without a
		// multi wildcard, so only a miss or a multi match needs the full
		// check; an unclean path is looked up again cleaned (and redirected).
		clean = cleanPath(path)
		*m = matcher{vals: c.vals, method: m.method, head: m.head, generic: true}
		rt = t.root.lookup(clean, m)
	}
	if (rt == nil || m.multi) && clean != "" && clean[len(clean)-1] != '/' {
		// ServeMux redirects /tree to /tree/ when only the latter matches
		// exactly.
		slash := c.withSlash(clean)
		probe := matcher{method: m.method, head: m.head, escaped: m.escaped, generic: true}
		if rt2 := t.root.lookup(slash, &probe); rt2 != nil && exactMatch(rt2.pat, slash) {
			u := url.URL{Path: cleanPath(r.URL.Path) + "/", RawQuery: r.URL.RawQuery}
			t.redirect(c, clean, u.String())
			return
		}
	}
	if m.generic && clean != path && !connect { // the fast mode never cleans: clean is path
		loc := clean
		if !m.escaped {
			loc = (&url.URL{Path: clean}).EscapedPath()
		}
		if r.URL.RawQuery != "" {
			loc += "?" + r.URL.RawQuery
		}
		t.redirect(c, clean, loc)
		return
	}
	if rt != nil {
		t.serveRoute(c, rt, m.n)
		return
	}
	t.serveMiss(c, clean, m)
}

// exactMatch reports whether p matches path without its multi wildcard
// swallowing more than a trailing slash, ServeMux's test for the redirect.
func exactMatch(p *pattern, path string) bool {
	if !p.last().multi {
		return true
	}
	return strings.HasSuffix(path, "/") && len(p.segs) == strings.Count(path, "/")
}

// withSlash returns path+"/" in c's scratch space, without allocating once
// the scratch has grown; the result is valid until the next call.
func (c *Ctx) withSlash(path string) string {
	c.scratch = append(append(c.scratch[:0], path...), '/')
	return unsafe.String(unsafe.SliceData(c.scratch), len(c.scratch))
}

func (t *table) serveRoute(c *Ctx, rt *route, n int) {
	c.route = rt
	c.nvals = n
	if hasBody(c.req) {
		t.guardBody(c, rt.maxBody)
		if rt.direct && c.bodyOversize { // what refuseOversize answers in a chain
			c.handleError(&BodyError{Err: &http.MaxBytesError{Limit: c.bodyLimit}})
			return
		}
	}
	if err := rt.serve(c); err != nil {
		c.handleError(err)
	}
}

// serveMiss answers a request whose path matched no route for its method:
// 405 (or 204 for OPTIONS) when routes of other methods match the path or
// the path with a slash added, 404 otherwise.
func (t *table) serveMiss(c *Ctx, path string, m *matcher) {
	c.nvals = 0
	mask := m.mask
	if path == "" || path[len(path)-1] != '/' {
		probe := matcher{collect: true, escaped: m.escaped, generic: true}
		t.root.lookup(c.withSlash(path), &probe)
		mask |= probe.mask
	}
	s := t.scopeOf(path, m.escaped)
	if mask == 0 {
		t.run(c, s.notFound)
		return
	}
	c.Header()["Allow"] = t.allowHeader(mask)
	if m.method == mOPTIONS {
		t.run(c, s.options)
		return
	}
	t.run(c, s.methodNotAllowed)
}

// run answers with a fallback h. A request body is never read by the
// built-in fallbacks: the response asks the client to close, and the body
// is cut after it (see Ctx.finish) rather than drained at the client's pace.
func (t *table) run(c *Ctx, h HandlerFunc) {
	if hasBody(c.req) {
		t.guardBody(c, 0)
		c.cutBody = true
		closeHTTP1(c.Header(), c.req)
	}
	if err := h(c); err != nil {
		c.handleError(err)
	}
}

// redirect answers with a 307 to location (a rooted path with an optional
// query), normalised as http.Redirect does: cleaned, trailing slash kept,
// bytes outside ASCII escaped.
func (t *table) redirect(c *Ctx, path, location string) {
	p, q, hasQuery := strings.Cut(location, "?")
	if cp := pathpkg.Clean(p); cp != p {
		if strings.HasSuffix(p, "/") && !strings.HasSuffix(cp, "/") {
			cp += "/"
		}
		p = cp
	}
	if hasQuery {
		p += "?" + q
	}
	c.location = escapeNonASCII(p)
	t.run(c, t.scopeOf(path, false).redirect)
}

// serveAsterisk answers "OPTIONS *" with every method the App routes, and
// any other request for "*" with 400, as ServeMux does.
func (t *table) serveAsterisk(c *Ctx) {
	if hasBody(c.req) {
		c.cutBody = true
		closeHTTP1(c.Header(), c.req)
	}
	if c.req.Method != http.MethodOptions {
		c.Header()["Connection"] = []string{"close"}
		c.w.WriteHeader(http.StatusBadRequest)
		return
	}
	c.Header()["Allow"] = t.allowHeader(t.allMask)
	c.w.WriteHeader(http.StatusNoContent)
}

// escapeNonASCII percent-encodes the bytes of s outside ASCII, as
// http.Redirect does for a Location header.
func escapeNonASCII(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 {
			b = append(b, '%', hex[c>>4], hex[c&0xf])
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}
