package bench

import "net/http"

// newStd is net/http's ServeMux with Go 1.22 patterns and r.PathValue.
func newStd(routes []Route) http.Handler {
	mux := http.NewServeMux()
	for _, rt := range routes {
		var h http.HandlerFunc
		switch rt.Kind {
		case KindHello:
			h = func(w http.ResponseWriter, r *http.Request) { writeHello(w) }
		case KindAccount:
			h = func(w http.ResponseWriter, r *http.Request) { writeAccount(w, r.PathValue("id")) }
		default:
			body := rt.Body
			h = func(w http.ResponseWriter, r *http.Request) { w.Write(body) }
		}
		mux.HandleFunc(rt.Method+" "+MuxPath(rt.Path), h)
	}
	return mux
}
