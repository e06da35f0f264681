package bench

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// newChi is a chi.Mux with no middleware (chi answers 405 by default).
func newChi(routes []Route) http.Handler {
	mux := chi.NewRouter()
	for _, rt := range routes {
		var h http.HandlerFunc
		switch rt.Kind {
		case KindHello:
			h = func(w http.ResponseWriter, r *http.Request) { writeHello(w) }
		case KindAccount:
			h = func(w http.ResponseWriter, r *http.Request) { writeAccount(w, chi.URLParam(r, "id")) }
		default:
			body := rt.Body
			h = func(w http.ResponseWriter, r *http.Request) { w.Write(body) }
		}
		mux.MethodFunc(rt.Method, ChiPath(rt.Path), h)
	}
	return mux
}
