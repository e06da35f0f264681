package httpserve

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/bench/internal/fullstack"
	"github.com/plinth-go/plinth/bench/internal/suite"
	"github.com/plinth-go/plinth/bench/internal/validated"
)

// Scenarios served over real HTTP beyond suite.ScenarioNames (cmd/instr).
const (
	// ValidatedJSON is POST /users with a 5-field JSON body, bound and
	// validated, answered 201 with JSON (bench/internal/validated): plinth is
	// the typed api operation on plinth.Bare(), plinth-new the same on
	// plinth.New(); huma, gin and echo serve their own forms.
	ValidatedJSON = "validated-json"
	// ModuleRoute is GET /items/42 served by a controller of a module
	// (package module) with a guard and an interceptor: plinth on
	// plinth.Bare(), plinth-new on plinth.New().
	ModuleRoute = "module-route"
	// FullStack is GET /accounts/42 with Accept-Encoding: gzip behind the
	// full production stack of package fullstack (request ID, access log,
	// Prometheus, 10%-sampled tracing, gzip, concurrency limit): served by
	// plinth-new (plinth.New()), chi, gin and echo.
	FullStack = fullstack.Scenario
	// HeadersPrefix names the scenarios headers-0 ... headers-10, served by
	// std only: what net/http costs per header line. A plain http.HandlerFunc
	// (no mux, no Plinth) on the zero-value http.Server answers GET / with
	// minimal's response ("Hello, World!", text/plain) after putting the
	// first N of HeaderLines into its header map (pre-built values assigned
	// to canonical keys: the handler allocates nothing of its own).
	HeadersPrefix = "headers-"
	// HeadersDefault is headers-N's response with DefaultLayerLines: what
	// net/http alone costs to send the lines plinth.New()'s default layer
	// adds to a response that is not a document.
	HeadersDefault = HeadersPrefix + "default"
)

// DefaultLayerLines are the header lines plinth.New() adds to a text or
// JSON response on plain HTTP (its request ID is 26 characters): the short
// security set for responses that are not documents, and X-Request-Id.
var DefaultLayerLines = [][2]string{
	{"Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"},
	{"Cross-Origin-Resource-Policy", "same-origin"},
	{"Referrer-Policy", "no-referrer"},
	{"X-Content-Type-Options", "nosniff"},
	{"X-Request-Id", "01KBF4Z8N2G7W3H5Q9R1T6V8XA"},
}

// HeaderLines are the header lines of the headers-N scenarios, in order:
// the four of the middleware scenario (suite.SecurityHeaderSet) first, then
// the rest of helmet's set on plain HTTP (plinth.HelmetHeaders less HSTS, as
// it was when this was written), written out so that the table does not move
// when Plinth's defaults do: headers-4 is the middleware scenario's four,
// headers-10 helmet's ten (its CSP in place of the short one).
var HeaderLines = [][2]string{
	{"X-Content-Type-Options", "nosniff"},
	{"X-Frame-Options", "SAMEORIGIN"},
	{"Referrer-Policy", "no-referrer"},
	{"Content-Security-Policy", "default-src 'self'"},
	{"Cross-Origin-Opener-Policy", "same-origin"},
	{"Cross-Origin-Resource-Policy", "same-origin"},
	{"Origin-Agent-Cluster", "?1"},
	{"X-DNS-Prefetch-Control", "off"},
	{"X-Permitted-Cross-Domain-Policies", "none"},
	{"X-XSS-Protection", "0"},
}

// helmetCSP replaces the short CSP in headers-N for N > 4: helmet's value.
const helmetCSP = "default-src 'self';base-uri 'self';font-src 'self' https: data:;" +
	"form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self'" +
	";script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests"

// Request is one request of a scenario as sent on the wire, and the status
// its answer must carry.
type Request struct {
	Raw    []byte
	Status int
}

// Requests returns the requests that make one op of the scenario, in order
// (github-all: one request to each of its 203 routes).
func Requests(scenario string) ([]Request, error) {
	get := func(path string, status int) Request {
		return Request{Raw: []byte("GET " + path + " HTTP/1.1\r\nHost: bench\r\n\r\n"), Status: status}
	}
	if scenario == ValidatedJSON {
		return []Request{{Raw: []byte("POST /users HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: " +
			strconv.Itoa(len(validated.RequestBody)) + "\r\n\r\n" + validated.RequestBody), Status: http.StatusCreated}}, nil
	}
	if scenario == ModuleRoute {
		return []Request{get("/items/42", http.StatusOK)}, nil
	}
	if scenario == FullStack {
		raw := "GET " + fullstack.Path + " HTTP/1.1\r\nHost: bench\r\n"
		for _, h := range fullstack.RequestHeaders {
			raw += h[0] + ": " + h[1] + "\r\n"
		}
		return []Request{{Raw: []byte(raw + "\r\n"), Status: http.StatusOK}}, nil
	}
	if _, ok := HeaderLineCount(scenario); ok {
		return []Request{get("/", http.StatusOK)}, nil
	}
	sc, err := suite.LoadScenario(scenario)
	if err != nil {
		return nil, err
	}
	reqs := make([]Request, len(sc.Requests))
	for i, rq := range sc.Requests {
		reqs[i] = Request{Raw: []byte(rq.Method + " " + rq.Path + " HTTP/1.1\r\nHost: bench\r\n\r\n"), Status: rq.Status}
	}
	return reqs, nil
}

// HandlerNamed is Handler for a scenario by name, suite's and those above.
func HandlerNamed(fw, scenario string) (http.Handler, error) {
	if base, ok := engineBase(fw); ok {
		h, err := HandlerNamed(base, scenario)
		return onEngine(fw, h, err)
	}
	if scenario == ValidatedJSON {
		switch fw {
		case "plinth":
			return validated.PlinthAPIOn(plinth.Bare()), nil
		case "plinth-new":
			return validated.PlinthAPIOn(plinth.New()), nil
		case "huma":
			return validated.Huma(), nil
		case "gin":
			return validated.Gin(), nil
		case "echo":
			return validated.Echo(), nil
		}
		return nil, fmt.Errorf("%s: served by plinth, plinth-new, huma, gin and echo, not %q", scenario, fw)
	}
	if scenario == ModuleRoute {
		switch fw {
		case "plinth":
			return moduleApp(plinth.Bare())
		case "plinth-new":
			return moduleApp(plinth.New())
		}
		return nil, fmt.Errorf("%s: served by plinth and plinth-new, not %q", scenario, fw)
	}
	if scenario == FullStack {
		st, err := fullstack.Build(fw)
		if err != nil {
			return nil, err
		}
		return st.Handler, nil
	}
	if _, ok := HeaderLineCount(scenario); ok {
		if fw != "std" {
			return nil, fmt.Errorf("%s: served by std only (a plain http.HandlerFunc), not %q", scenario, fw)
		}
		return headersHandler(scenario), nil
	}
	sc, err := suite.LoadScenario(scenario)
	if err != nil {
		return nil, err
	}
	return Handler(fw, sc)
}

// HeaderLineCount returns the number of header lines a headers-N or
// headers-default scenario adds, and whether scenario is one of them.
func HeaderLineCount(scenario string) (int, bool) {
	if scenario == HeadersDefault {
		return len(DefaultLayerLines), true
	}
	return headerCount(scenario)
}

// headerCount parses headers-N.
func headerCount(scenario string) (int, bool) {
	s, ok := strings.CutPrefix(scenario, HeadersPrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > len(HeaderLines) || strconv.Itoa(n) != s {
		return 0, false
	}
	return n, true
}

// headersHandler answers minimal's response with the lines of scenario (a
// headers-N or headers-default).
func headersHandler(scenario string) http.Handler {
	type line struct {
		k string
		v []string
	}
	var lines []line
	if scenario == HeadersDefault {
		for _, kv := range DefaultLayerLines {
			lines = append(lines, line{http.CanonicalHeaderKey(kv[0]), []string{kv[1]}})
		}
	} else {
		n, _ := headerCount(scenario)
		for _, kv := range HeaderLines[:n] {
			v := kv[1]
			if kv[0] == "Content-Security-Policy" && n > 4 {
				v = helmetCSP
			}
			lines = append(lines, line{http.CanonicalHeaderKey(kv[0]), []string{v}})
		}
	}
	textPlain := []string{"text/plain; charset=utf-8"}
	body := []byte(suite.Hello)
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		for _, l := range lines {
			h[l.k] = l.v
		}
		h["Content-Type"] = textPlain
		w.WriteHeader(http.StatusOK)
		w.Write(body)
	})
}

// ExtraScenarios lists the scenarios HandlerNamed serves beyond
// suite.ScenarioNames (headers-N for the N of the net/http table).
var ExtraScenarios = []string{ValidatedJSON, ModuleRoute, "headers-0", "headers-4", "headers-10", HeadersDefault}

// KnownScenario reports whether HandlerNamed knows the scenario.
func KnownScenario(name string) bool {
	_, ok := HeaderLineCount(name)
	return ok || slices.Contains(suite.ScenarioNames, name) || name == ValidatedJSON || name == ModuleRoute || name == FullStack
}

// RequestPath is the path of the scenario's timed request, and
// RequestHeaders the header lines ("Name: value") every request of it
// carries (cmd/bench-server -print-path and -print-headers, for the load
// generators).
func RequestPath(scenario string) (string, error) {
	if scenario == FullStack {
		return fullstack.Path, nil
	}
	sc, err := suite.LoadScenario(scenario)
	if err != nil {
		return "", err
	}
	return sc.Requests[0].Path, nil
}

// RequestHeaders: see RequestPath.
func RequestHeaders(scenario string) []string {
	var lines []string
	if scenario == FullStack {
		for _, h := range fullstack.RequestHeaders {
			lines = append(lines, h[0]+": "+h[1])
		}
	}
	return lines
}
