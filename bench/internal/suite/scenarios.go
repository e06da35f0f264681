// Package suite is the benchmark suite's library: one definition of each
// scenario (scenarios.go) and one adapter per framework (fw_*.go) that turns
// that definition into an http.Handler with identical handlers and, for the
// middleware scenarios, each framework's own middleware (middleware.go); the
// reusable response writer the benchmarks time with and the checks of every
// response (writer.go, check.go); and allocation counting (allocs.go). The
// in-process benchmarks (bench/bench_test.go, run-inprocess.sh) and
// TestAllocBudgets use it in process; cmd/bench-server and cmd/instr serve
// the same handlers over real HTTP through package httpserve.
//
// Route paths in a scenario are written in httprouter syntax (":name" for a
// segment parameter, "*name" for a catch-all), the syntax of the GitHub route
// table; each adapter converts them to its own syntax (paths.go).
package suite

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Kind selects which of the shared handlers a route gets.
type Kind int

const (
	// KindFixed writes the route's Body with no headers and an implicit 200.
	KindFixed Kind = iota
	// KindHello writes 200 "Hello, World!" as text/plain.
	KindHello
	// KindAccount parses the "id" parameter with strconv.Atoi (400 "invalid id"
	// on error) and writes Account for it as JSON.
	KindAccount
)

// Hello is the body of the minimal scenario.
const Hello = "Hello, World!"

// InvalidID is the text body a KindAccount handler writes with status 400.
const InvalidID = "invalid id"

// Account is the JSON object of the json scenario.
type Account struct {
	ID      int     `json:"id"`
	Name    string  `json:"name"`
	Email   string  `json:"email"`
	Active  bool    `json:"active"`
	Balance float64 `json:"balance"`
}

// NewAccount returns the account every KindAccount handler renders for id.
func NewAccount(id int) Account {
	return Account{ID: id, Name: "Ada Lovelace", Email: "ada@example.com", Active: true, Balance: 1234.5}
}

// accountJSON is the expected body for id, without a trailing newline.
func accountJSON(id int) string {
	return `{"id":` + strconv.Itoa(id) + `,"name":"Ada Lovelace","email":"ada@example.com","active":true,"balance":1234.5}`
}

// Route is one registered route.
type Route struct {
	Method string
	Path   string // httprouter syntax: /users/:user, /files/*path
	Kind   Kind
	Body   []byte // for KindFixed
}

// Request is one request of a scenario and what the response must be.
type Request struct {
	Method string
	Path   string
	Status int
	// Body, when not empty, must equal the response body (a trailing newline
	// in the response is ignored: json.Encoder adds one, json.Marshal does not).
	Body string
	// ContentType, when not empty, must be the media type of the response
	// (parameters such as charset are ignored, case-insensitively).
	ContentType string
	// Headers must be in the response with these values; AnyValue stands
	// for any non-empty value.
	Headers map[string]string
}

// AnyValue in Request.Headers accepts any non-empty header value.
const AnyValue = "\x00any"

// Scenario is a route table and the requests that make one benchmark op.
type Scenario struct {
	Name     string
	Routes   []Route
	Requests []Request // one op serves each of these once
	// Checks are further requests TestScenarios verifies but no benchmark times.
	Checks []Request
	// Stack is the middleware every framework puts around the routes.
	Stack Stack
	// Only, when not empty, names the frameworks that serve the scenario
	// (default-stack is about Plinth's two forms; std stays as the yardstick).
	Only []string
}

// Serves reports whether the framework named fw takes part in the scenario.
func (sc Scenario) Serves(fw string) bool {
	return len(sc.Only) == 0 || slices.Contains(sc.Only, fw)
}

// Stack selects the middleware a scenario puts around its routes.
type Stack int

const (
	// StackNone: the routes alone (plinth-new still has its default layer).
	StackNone Stack = iota
	// StackLayered: a request ID, the four SecurityHeaderSet headers and a
	// HandlerTimeout context deadline, each framework with its own
	// middleware; Plinth as plinth.Bare() with three Use layers.
	StackLayered
	// StackFused: as StackLayered, but Plinth with the fused default layer of
	// plinth.New() restricted to the four headers (the other frameworks have
	// no fused form and serve StackLayered).
	StackFused
)

// GitHubRoutesFile is where the GitHub route table is read from, relative to
// the bench directory: the copy the repository ships in testdata/.
const GitHubRoutesFile = "../testdata/routes/github-api.txt"

// GitHubRouteCount is the number of routes in GitHubRoutesFile.
const GitHubRouteCount = 203

// Scenario names, in report order.
const (
	Minimal          = "minimal"
	JSON             = "json"
	Routes50         = "routes-50"
	GitHubAll        = "github-all"
	GitHubStatic     = "github-static"
	GitHubParam      = "github-param"
	NotFound         = "not-found"
	MethodNotAllowed = "method-not-allowed"
	Middleware       = "middleware"
	MiddlewareFused  = "middleware-fused"
	DefaultStack     = "default-stack"
)

// ScenarioNames lists every scenario in report order.
var ScenarioNames = []string{Minimal, JSON, Routes50, GitHubAll, GitHubStatic, GitHubParam, NotFound, MethodNotAllowed,
	Middleware, MiddlewareFused, DefaultStack}

// LoadScenario builds the named scenario. Scenarios on the GitHub table read
// GitHubRoutesFile and fail with a message naming it when it is missing.
func LoadScenario(name string) (Scenario, error) {
	account := Route{Method: "GET", Path: "/accounts/:id", Kind: KindAccount}
	accountReq := Request{Method: "GET", Path: "/accounts/42", Status: 200, Body: accountJSON(42), ContentType: "application/json"}
	accountChecks := []Request{
		{Method: "GET", Path: "/accounts/7", Status: 200, Body: accountJSON(7), ContentType: "application/json"},
		{Method: "GET", Path: "/accounts/abc", Status: 400, Body: InvalidID},
	}
	hello := Route{Method: "GET", Path: "/", Kind: KindHello}
	helloReq := Request{Method: "GET", Path: "/", Status: 200, Body: Hello, ContentType: "text/plain"}
	switch name {
	case Minimal:
		return Scenario{Name: name, Routes: []Route{hello}, Requests: []Request{helloReq}}, nil
	case Middleware, MiddlewareFused:
		// GET / behind a request ID, four security headers and a timeout.
		req := helloReq
		req.Headers = securedHeaders()
		if name == MiddlewareFused {
			// Plinth's fused default layer; the others have no fused form
			// (their stack is middleware's): net/http stays as the yardstick.
			return Scenario{Name: name, Routes: []Route{hello}, Requests: []Request{req}, Stack: StackFused,
				Only: []string{"plinth", "std"}}, nil
		}
		return Scenario{Name: name, Routes: []Route{hello}, Requests: []Request{req}, Stack: StackLayered}, nil
	case DefaultStack:
		// minimal, for plinth.New() against plinth.Bare().
		return Scenario{Name: name, Routes: []Route{hello}, Requests: []Request{helloReq},
			Only: []string{"plinth", "plinth-new", "std", "std-defaults"}}, nil
	case JSON:
		return Scenario{
			Name:     name,
			Routes:   []Route{account},
			Requests: []Request{accountReq},
			Checks:   accountChecks,
		}, nil
	case Routes50:
		// 50 parameterised routes with the account route in the middle.
		var routes []Route
		checks := append([]Request(nil), accountChecks...)
		for i := range 50 {
			if i == 25 {
				routes = append(routes, account)
			}
			rt := fixedRoute("GET", "/v1/resource"+strconv.Itoa(i)+"/:id/items/:item")
			routes = append(routes, rt)
			if i%7 == 0 {
				checks = append(checks, fixedRequest(rt))
			}
		}
		return Scenario{Name: name, Routes: routes, Requests: []Request{accountReq}, Checks: checks}, nil
	}

	gh, err := LoadGitHubRoutes(GitHubRoutesFile)
	if err != nil {
		return Scenario{}, err
	}
	sc := Scenario{Name: name, Routes: gh}
	switch name {
	case GitHubAll, GitHubStatic, GitHubParam:
		for _, rt := range gh {
			static := !strings.ContainsAny(rt.Path, ":*")
			if name == GitHubStatic && !static || name == GitHubParam && static {
				continue
			}
			sc.Requests = append(sc.Requests, fixedRequest(rt))
		}
	case NotFound:
		sc.Requests = []Request{{Method: "GET", Path: "/this/path/does/not/exist", Status: 404}}
	case MethodNotAllowed:
		// /authorizations has GET and POST routes, no PUT.
		sc.Requests = []Request{{Method: "PUT", Path: "/authorizations", Status: 405}}
	default:
		return Scenario{}, fmt.Errorf("bench: unknown scenario %q", name)
	}
	return sc, nil
}

// fixedRoute is a KindFixed route whose body names the route, so a test can
// tell which route answered.
func fixedRoute(method, path string) Route {
	return Route{Method: method, Path: path, Kind: KindFixed, Body: []byte(method + " " + path)}
}

// fixedRequest is the request that must reach rt: each parameter replaced by
// its name, 200 and rt's body.
func fixedRequest(rt Route) Request {
	return Request{Method: rt.Method, Path: RequestPath(rt.Path), Status: 200, Body: string(rt.Body)}
}

// LoadGitHubRoutes reads a route table of "METHOD PATH" lines ('#' starts a
// comment line) and gives every route a KindFixed handler.
func LoadGitHubRoutes(file string) ([]Route, error) {
	f, err := os.Open(file)
	if err != nil {
		abs, _ := filepath.Abs(file)
		return nil, fmt.Errorf("bench: GitHub route table missing: %v\n"+
			"\tthe benchmarks read %s (%s), relative to bench/;\n"+
			"\tit ships with the repository (testdata/routes/github-api.txt); run from bench/", err, file, abs)
	}
	defer f.Close()
	var routes []Route
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 || !strings.HasPrefix(fields[1], "/") {
			return nil, fmt.Errorf("bench: %s:%d: want \"METHOD /path\", got %q", file, n, line)
		}
		routes = append(routes, fixedRoute(fields[0], fields[1]))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("bench: reading %s: %v", file, err)
	}
	if len(routes) == 0 {
		return nil, fmt.Errorf("bench: %s holds no routes", file)
	}
	return routes, nil
}
