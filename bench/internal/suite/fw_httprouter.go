package suite

import (
	"net/http"

	"github.com/julienschmidt/httprouter"
)

// newHTTPRouter is httprouter with its defaults (405 with Allow is on).
func newHTTPRouter(routes []Route) http.Handler {
	router := httprouter.New()
	for _, rt := range routes {
		var h httprouter.Handle
		switch rt.Kind {
		case KindHello:
			h = func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) { writeHello(w) }
		case KindAccount:
			h = func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) { writeAccount(w, ps.ByName("id")) }
		default:
			body := rt.Body
			h = func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) { w.Write(body) }
		}
		router.Handle(rt.Method, rt.Path, h)
	}
	return router
}

// securedHTTPRouter is newHTTPRouter inside the hand-written wrappers of
// middleware.go (httprouter has no middleware of its own).
func securedHTTPRouter(routes []Route, _ bool) http.Handler { return stdSecured(newHTTPRouter(routes)) }
