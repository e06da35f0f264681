//go:build !plinth_enginepoison

package engine

import "net/http"

// releaseRequest is called when a request's handler has returned and its
// response is finished; a plinth_enginepoison build checks there that the
// engine reuses nothing the handler could reach (release_poison.go).
func releaseRequest(c *conn) { _ = c.poisonState }

// poisonState is what a plinth_enginepoison build keeps per connection:
// nothing in a normal build.
type poisonState struct{}

// bodyAfterReturn is the error of a Body read after its handler returned,
// as net/http's for a body the server has closed.
func bodyAfterReturn() error { return http.ErrBodyReadAfterClose }

// poisoning reports a plinth_enginepoison build.
const poisoning = false
