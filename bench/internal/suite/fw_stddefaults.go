package suite

import (
	"context"
	"net/http"
	"time"

	"github.com/plinth-go/plinth"
)

// newStdDefaults is net/http doing by hand what plinth.New()'s default layer
// does, in its fastest plain form: panic recovery, a request ID (a sane
// incoming one kept, else generated; echoed), helmet's header set (the values
// plinth.HelmetHeaders gives, HSTS left out as on plain HTTP) and a 30 s
// context deadline. It is the yardstick for the cost of Plinth's defaults:
// the same work, written for net/http, against which plinth-new's extra cost
// is zero if the fused layer is as cheap as the hand-written one.
func newStdDefaults(routes []Route) http.Handler {
	return stdDefaults(newStd(routes))
}

func stdDefaults(next http.Handler) http.Handler {
	type kv struct {
		k string
		v []string
	}
	var set []kv
	for k, v := range plinth.HelmetHeaders() {
		if k == "Strict-Transport-Security" {
			continue // TLS only
		}
		set = append(set, kv{http.CanonicalHeaderKey(k), []string{v}})
	}
	ids := newIDSource()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				http.Error(w, "internal server error", http.StatusInternalServerError)
			}
		}()
		h := w.Header()
		id := r.Header.Get(RequestIDHeader)
		if id == "" || len(id) > 64 {
			id = ids.next()
		}
		h[RequestIDHeader] = []string{id}
		for _, e := range set {
			h[e.k] = e.v
		}
		ctx, cancel := context.WithTimeout(context.WithValue(r.Context(), requestIDKey{}, id), 30*time.Second)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
