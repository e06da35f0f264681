//go:build !plinth_enginepoison

package engine

// releaseRequest is called when a request's handler has returned and its
// response is finished; the request is reused for the next one.
func releaseRequest(*conn) {}

// poisoning reports a plinth_enginepoison build.
const poisoning = false
