package bench

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// newChi is a chi.Mux with no middleware (chi answers 405 by default).
func newChi(routes []Route) http.Handler {
	mux := chi.NewRouter()
	for _, rt := range routes {
		h := stdHandler(rt, func(r *http.Request) string { return chi.URLParam(r, "id") })
		mux.MethodFunc(rt.Method, ChiPath(rt.Path), h)
	}
	return mux
}
