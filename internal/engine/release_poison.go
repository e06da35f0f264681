//go:build plinth_enginepoison

package engine

import (
	"net/http"
	"net/url"
)

// releaseRequest, in a plinth_enginepoison build, poisons the request its
// handler has returned from and gives the connection fresh ones: a handler
// that kept the request, its Header, URL or Body fails loudly on its next
// use (a nil URL and Header, a Body that panics) instead of reading the
// next request.
func releaseRequest(c *conn) {
	r := c.req
	r.Method = "POISONED-REQUEST-USED-AFTER-ITS-HANDLER-RETURNED"
	r.URL = nil
	r.Header = nil
	r.Body = poisonBody{}
	r.Host = "poisoned.invalid"
	r.RequestURI = ""
	c.url = url.URL{Path: "/poisoned"}
	clear(c.hdr)
	c.hdr["X-Poisoned"] = []string{"request used after its handler returned"}
	c.req = new(http.Request)
	c.hdr = make(http.Header, 16)
	c.vals = make([]string, 0, 32)
	// c.url is a value in conn: the old request's URL pointer was set to nil
	// above; a kept *url.URL from r.URL is poisoned by the Path above until
	// the next request overwrites it.
}

type poisonBody struct{}

func (poisonBody) Read([]byte) (int, error) {
	panic("engine: request Body read after its handler returned (the engine reuses requests; see docs/engine.md)")
}
func (poisonBody) Close() error {
	panic("engine: request Body closed after its handler returned (the engine reuses requests; see docs/engine.md)")
}

// poisoning reports a plinth_enginepoison build.
const poisoning = true
