//go:build plinth_enginepoison

package engine

import (
	"net/http"
	"reflect"
)

// A plinth_enginepoison build checks, at the end of each request, the
// engine's promise that nothing a handler can reach is reused: the request
// its handler returned from must be left as the handler left it while the
// connection serves its next requests. It keeps a copy of the request's
// method, URL and header, and the next request of the connection compares
// them with the request itself: a difference is a bug of the engine's and
// panics. A Body read after its handler returned panics too, rather than
// returning http.ErrBodyReadAfterClose, so that a test finds the handler
// that does it.

// releaseRequest notes the request whose handler has returned.
func releaseRequest(c *conn) {
	checkReleased(c)
	r := c.req
	c.released = &releasedRequest{r: r, method: r.Method, url: r.URL.String(), header: r.Header.Clone()}
}

// checkReleased panics if the last request noted was changed since.
func checkReleased(c *conn) {
	p := c.released
	if p == nil {
		return
	}
	if p.r.Method != p.method || p.r.URL.String() != p.url || !reflect.DeepEqual(map[string][]string(p.r.Header), map[string][]string(p.header)) {
		panic("engine: a request was changed after its handler returned (the engine reused it)")
	}
}

// poisonState is the connection's note of its last request.
type poisonState struct{ released *releasedRequest }

type releasedRequest struct {
	r      *http.Request
	method string
	url    string
	header http.Header
}

func bodyAfterReturn() error {
	panic("engine: request Body read after its handler returned")
}

// poisoning reports a plinth_enginepoison build.
const poisoning = true
