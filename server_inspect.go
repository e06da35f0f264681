package plinth

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Inspection: the environment variable PLINTH_INSPECT makes Run and Serve
// describe the App instead of serving it, so that a tool (the plinth
// command's routes and openapi) can read what a program registers by
// running it, not by parsing its source. It works only in a binary built
// with the build tag plinth_inspect (`go build -tags plinth_inspect`, which
// the plinth command passes): a normal build, the one deployed, ignores the
// variable, logging a warning, and serves, so that an environment alone
// cannot stop a production binary (exiting 0, which a supervisor's
// Restart=on-failure does not restart) or make it write a file.
//
//	PLINTH_INSPECT=routes    the route table as JSON: an array of
//	                         {"method", "pattern", "handler", "source"},
//	                         in registration order (App.Routes)
//	PLINTH_INSPECT=openapi   the OpenAPI document as JSON, as SetOpenAPI's
//	                         function returns it (api.New sets it)
//
// In a plinth_inspect build, Run and Serve then resolve the configuration
// as usual (a bad PLINTH_* value is still their error), build the App (a
// bad route still panics), write the JSON to the file named by
// PLINTH_INSPECT_OUTPUT, which must not exist yet (it is created, never
// overwritten), or to standard output when it is unset, and exit the
// process with status 0: before listening, before the OnStart hooks (which
// may open connections), and without running what follows Run in main.
// Another value of PLINTH_INSPECT, an App without a document for openapi,
// or a failed write is Run's error, and nothing exits. Unset or empty, the
// variable changes nothing; the work a program does before it calls Run
// (opening a database, say) is done either way.
// (server_inspect_enabled.go and server_inspect_disabled.go hold the two
// builds' inspect.)
const (
	inspectEnv       = "PLINTH_INSPECT"
	inspectOutputEnv = "PLINTH_INSPECT_OUTPUT"
)

// SetOpenAPI registers the function that returns the App's OpenAPI
// document as JSON, which PLINTH_INSPECT=openapi prints (`plinth openapi`).
// The api package's New sets it to the document of its API; a program
// that builds its document otherwise may set its own. The last call wins.
// Default none: PLINTH_INSPECT=openapi then fails, saying so. It is not
// called while the App serves.
func (a *App) SetOpenAPI(doc func() ([]byte, error)) {
	a.mustBeOpen()
	a.openAPI = doc
}

// Inspection answers an added PLINTH_INSPECT mode (AddInspection): args
// are the words that follow the mode's name in the variable's value, and
// the result is written as the mode's output.
type Inspection func(ctx context.Context, args []string) ([]byte, error)

// inspectionTimeout bounds an added inspection mode's run.
const inspectionTimeout = 30 * time.Second

// AddInspection adds a PLINTH_INSPECT mode, for a module's admin command
// run through the application's own binary: PLINTH_INSPECT="name arg..."
// calls fn with the words after the name (within 30s), writes its output
// as routes' is written, and exits 0; fn's error is Run's. The jobs
// package adds "jobs" (`plinth jobs list`). As with every mode, it works
// only in a plinth_inspect build, and runs before the OnStart hooks: fn
// uses what the program opened before Run. routes and openapi cannot be
// replaced; adding a name twice panics.
func (a *App) AddInspection(name string, fn Inspection) {
	a.mustBeOpen()
	if name == "" || strings.ContainsAny(name, " \t") || name == "routes" || name == "openapi" || fn == nil {
		panic(fmt.Sprintf("plinth: AddInspection(%q): a name of one word, not routes or openapi, and a function", name))
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, dup := a.inspections[name]; dup {
		panic(fmt.Sprintf("plinth: AddInspection(%q): added twice", name))
	}
	if a.inspections == nil {
		a.inspections = make(map[string]Inspection)
	}
	a.inspections[name] = fn
}

// inspectedRoute is one route of PLINTH_INSPECT=routes.
type inspectedRoute struct {
	Method  string `json:"method"`
	Pattern string `json:"pattern"`
	Handler string `json:"handler"`
	Source  string `json:"source"`
}

// inspection builds the App and returns the JSON that mode asks for.
func (a *App) inspection(mode string) ([]byte, error) {
	switch mode {
	case "routes":
		a.Build()
		routes := a.Routes()
		list := make([]inspectedRoute, len(routes))
		for i, rt := range routes {
			list[i] = inspectedRoute(rt)
		}
		out, err := json.MarshalIndent(list, "", "  ")
		return append(out, '\n'), err
	case "openapi":
		a.Build()
		if a.openAPI == nil {
			return nil, fmt.Errorf("plinth: %s=openapi: the App has no OpenAPI document (api.New, or App.SetOpenAPI, gives it one)", inspectEnv)
		}
		out, err := a.openAPI()
		if err != nil {
			return nil, fmt.Errorf("plinth: %s=openapi: %w", inspectEnv, err)
		}
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		return out, nil
	}
	words := strings.Fields(mode)
	a.mu.Lock()
	var fn Inspection
	if len(words) > 0 {
		fn = a.inspections[words[0]]
	}
	added := slices.Sorted(maps.Keys(a.inspections))
	a.mu.Unlock()
	if fn != nil {
		a.Build()
		ctx, cancel := context.WithTimeout(context.Background(), inspectionTimeout)
		defer cancel()
		out, err := fn(ctx, words[1:])
		if err != nil {
			return nil, fmt.Errorf("plinth: %s=%q: %w", inspectEnv, mode, err)
		}
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		return out, nil
	}
	also := ""
	if len(added) > 0 {
		also = ", " + strings.Join(added, ", ")
	}
	return nil, fmt.Errorf("plinth: %s=%q: want routes or openapi%s (or nothing, to serve)", inspectEnv, mode, also)
}
