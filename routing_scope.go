package plinth

import (
	"net/http"
	"strings"
)

// scope holds the composed fallback answers of the App or of one prefixed
// group: each wrapped in the scope-level middleware of the group and of its
// ancestors.
type scope struct {
	segs             []segment
	notFound         HandlerFunc
	methodNotAllowed HandlerFunc
	options          HandlerFunc
	redirect         HandlerFunc
}

func newScope(t *table, g *Router) *scope {
	nf, mna := http.Handler(HandlerFunc(defaultNotFound)), http.Handler(HandlerFunc(defaultMethodNotAllowed))
	if h := inherited(g, func(r *Router) http.Handler { return r.notFound }); h != nil {
		nf = h
	}
	if h := inherited(g, func(r *Router) http.Handler { return r.methodNotAllowed }); h != nil {
		mna = h
	}
	return &scope{
		segs:             g.segs,
		notFound:         t.outer(g, compose(g, nativeOf(nf, nil))),
		methodNotAllowed: t.outer(g, compose(g, nativeOf(mna, nil))),
		options:          t.outer(g, compose(g, defaultOptions)),
		redirect:         t.outer(g, compose(g, defaultRedirect)),
	}
}

// inherited returns the handler get finds on g or its nearest ancestor.
func inherited(g *Router, get func(*Router) http.Handler) http.Handler {
	for ; g != nil; g = g.parent {
		if h := get(g); h != nil {
			return h
		}
	}
	return nil
}

// scopeOf returns the innermost scope whose prefix matches path.
func (t *table) scopeOf(path string, escaped bool) *scope {
	for _, s := range t.scopes {
		if prefixMatches(s.segs, path, escaped) {
			return s
		}
	}
	return t.scopes[len(t.scopes)-1]
}

// prefixMatches reports whether path starts with the segments of a group
// prefix (literals and single wildcards).
func prefixMatches(segs []segment, path string, escaped bool) bool {
	for _, s := range segs {
		if len(path) < 2 || path[0] != '/' {
			return false
		}
		seg := path[1:]
		path = ""
		if i := strings.IndexByte(seg, '/'); i >= 0 {
			seg, path = seg[:i], seg[i:]
		}
		if escaped {
			seg = unescapeSegment(seg)
		}
		if s.wild {
			if seg == "" {
				return false
			}
		} else if seg != s.lit {
			return false
		}
	}
	return true
}

// The default 404 and 405 documents, rendered once. With a request ID the
// document is rendered per request instead, still without allocating.
var (
	notFoundProblem         = &Problem{Status: http.StatusNotFound}
	methodNotAllowedProblem = &Problem{Status: http.StatusMethodNotAllowed}
	notFoundBody            = notFoundProblem.appendJSON(nil, "")
	methodNotAllowedBody    = methodNotAllowedProblem.appendJSON(nil, "")
)

func defaultNotFound(c *Ctx) error {
	c.writeProblemBody(notFoundProblem, notFoundBody)
	return nil
}

func defaultMethodNotAllowed(c *Ctx) error {
	c.writeProblemBody(methodNotAllowedProblem, methodNotAllowedBody)
	return nil
}

func defaultOptions(c *Ctx) error {
	c.w.WriteHeader(http.StatusNoContent)
	return nil
}

func defaultRedirect(c *Ctx) error {
	c.Header()["Location"] = []string{c.location}
	c.w.WriteHeader(http.StatusTemporaryRedirect)
	return nil
}
