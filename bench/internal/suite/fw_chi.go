package suite

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// newChi is a chi.Mux with no middleware (chi answers 405 by default).
func newChi(routes []Route) http.Handler {
	mux := chi.NewRouter()
	chiRoutes(mux, routes)
	return mux
}

// securedChi uses chi's middleware.RequestID (which keeps the ID in the
// context only), a header middleware that echoes it with the four security
// headers, and middleware.Timeout.
func securedChi(routes []Route, _ bool) http.Handler {
	mux := chi.NewRouter()
	mux.Use(middleware.RequestID, chiHeaders, middleware.Timeout(HandlerTimeout))
	chiRoutes(mux, routes)
	return mux
}

func chiRoutes(mux *chi.Mux, routes []Route) {
	for _, rt := range routes {
		h := stdHandler(rt, func(r *http.Request) string { return chi.URLParam(r, "id") })
		mux.MethodFunc(rt.Method, ChiPath(rt.Path), h)
	}
}

func chiHeaders(next http.Handler) http.Handler {
	sec := stdSecurityHeaders(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()[RequestIDHeader] = []string{middleware.GetReqID(r.Context())}
		sec.ServeHTTP(w, r)
	})
}
