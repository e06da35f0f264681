package bench

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
}

// Frameworks lists every framework under test, Plinth first.
var Frameworks = []Framework{
	{"plinth", newPlinth},
	{"plinth-new", newPlinthDefaults},
	{"std", newStd},
	{"httprouter", newHTTPRouter},
	{"chi", newChi},
	{"gin", newGin},
	{"echo", newEcho},
}

// Build is fw.New with a registration panic (a bad pattern or a route
// conflict) turned into an error.
func (fw Framework) Build(routes []Route) (h http.Handler, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: registering routes: %v", fw.Name, p)
		}
	}()
	return fw.New(routes), nil
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
