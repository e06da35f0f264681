package suite

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// Framework builds an http.Handler serving a scenario's routes with the
// shared handlers, in the framework's idiomatic form.
type Framework struct {
	Name string
	New  func(routes []Route) http.Handler
	// Secured serves the routes behind the framework's own request ID,
	// security headers and timeout middleware (see middleware.go); fused
	// asks for a fused form where the framework has one (Plinth's default
	// layer). Nil when the framework cannot serve the middleware scenarios.
	Secured func(routes []Route, fused bool) http.Handler
}

// Frameworks lists every framework under test in process, Plinth first.
// (fiber is served over real HTTP only, by cmd/bench-server: it is not an
// http.Handler.)
var Frameworks = []Framework{
	{"plinth", newPlinth, securedPlinth},
	{"plinth-new", newPlinthDefaults, securedPlinthDefaults},
	{"std", newStd, securedStd},
	{"std-defaults", newStdDefaults, nil},
	{"httprouter", newHTTPRouter, securedHTTPRouter},
	{"chi", newChi, securedChi},
	{"gin", newGin, securedGin},
	{"echo", newEcho, securedEcho},
}

// Build is fw.New with a registration panic (a bad pattern or a route
// conflict) turned into an error.
func (fw Framework) Build(routes []Route) (h http.Handler, err error) {
	return fw.BuildScenario(Scenario{Routes: routes})
}

// Serves reports whether fw takes part in sc.
func (fw Framework) Serves(sc Scenario) bool {
	return sc.Serves(fw.Name) && (sc.Stack == StackNone || fw.Secured != nil)
}

// BuildScenario builds sc's routes with sc's middleware stack, with a
// registration panic turned into an error.
func (fw Framework) BuildScenario(sc Scenario) (h http.Handler, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: registering routes: %v", fw.Name, p)
		}
	}()
	if !fw.Serves(sc) {
		return nil, fmt.Errorf("%s does not serve scenario %s", fw.Name, sc.Name)
	}
	if sc.Stack != StackNone {
		return fw.Secured(sc.Routes, sc.Stack == StackFused), nil
	}
	return fw.New(sc.Routes), nil
}

// FrameworkNamed returns the in-process framework called name.
func FrameworkNamed(name string) (Framework, bool) {
	for _, fw := range Frameworks {
		if fw.Name == name {
			return fw, true
		}
	}
	return Framework{}, false
}

// stdHandler is rt's shared handler in net/http form, for the routers that
// take plain handlers; id reads the "id" path parameter their own way.
func stdHandler(rt Route, id func(*http.Request) string) http.HandlerFunc {
	switch rt.Kind {
	case KindHello:
		return func(w http.ResponseWriter, r *http.Request) { writeHello(w) }
	case KindAccount:
		return func(w http.ResponseWriter, r *http.Request) { writeAccount(w, id(r)) }
	}
	body := rt.Body
	return func(w http.ResponseWriter, r *http.Request) { w.Write(body) }
}

// The net/http forms of the shared handlers, used as they are by std, chi and
// httprouter; each of those only says where its "id" parameter comes from.

func writeHello(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, Hello)
}

func writeAccount(w http.ResponseWriter, idParam string) {
	id, err := strconv.Atoi(idParam)
	if err != nil {
		http.Error(w, InvalidID, http.StatusBadRequest)
		return
	}
	acct := NewAccount(id)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(&acct)
}
