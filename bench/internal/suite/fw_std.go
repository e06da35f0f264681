package suite

import "net/http"

// newStd is net/http's ServeMux with Go 1.22 patterns and r.PathValue.
func newStd(routes []Route) http.Handler {
	mux := http.NewServeMux()
	for _, rt := range routes {
		h := stdHandler(rt, func(r *http.Request) string { return r.PathValue("id") })
		mux.HandleFunc(rt.Method+" "+MuxPath(rt.Path), h)
	}
	return mux
}

// securedStd is newStd inside the hand-written wrappers of middleware.go.
func securedStd(routes []Route, _ bool) http.Handler { return stdSecured(newStd(routes)) }
