// Package httpserve is what cmd/bench-server and cmd/instr serve over real
// HTTP: the frameworks by name (frameworks.go; fiber, which is not an
// http.Handler, stays in cmd/bench-server); for the std-limits and
// std-defaults yardsticks, a net/http server given Plinth's default limits
// (limits.go); the scenarios cmd/instr serves beyond the suite's and every
// scenario's requests as bytes on the wire (scenarios.go); and the
// keep-alive client cmd/instr and cmd/instr-gate load a server with
// (client.go).
package httpserve

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/plinth-go/plinth/bench/internal/suite"
)

// Frameworks are the frameworks cmd/bench-server serves over real HTTP, in
// report order.
var Frameworks = []string{"plinth-new", "plinth", "std-limits", "std-defaults", "std", "httprouter", "chi", "gin", "echo", "fiber"}

// Handler returns the handler cmd/bench-server (and cmd/instr) serve for fw,
// one of the net/http frameworks of Frameworks (not fiber), and sc.
// std-limits and std-defaults are net/http's ServeMux (std) and std-defaults'
// hand-written default layer; over HTTP every framework serves every scenario
// (default-stack is minimal for all but Plinth, middleware-fused is
// middleware for all but Plinth), so sc.Only is ignored. Serve std-limits and
// std-defaults with NewLimitedServer on LimitListener (Limited).
func Handler(fw string, sc suite.Scenario) (http.Handler, error) {
	if base, ok := engineBase(fw); ok { // plinth-fast, plinth-new-fast (engine.go)
		h, err := Handler(base, sc)
		return onEngine(fw, h, err)
	}
	name := fw
	if fw == "std-limits" || fw == "std-defaults" && sc.Stack != suite.StackNone {
		// The middleware scenarios give net/http its own hand-written stack
		// (std's); std-defaults differs from std-limits on the others only.
		name = "std"
	}
	f, ok := suite.FrameworkNamed(name)
	if !ok || fw == "fiber" {
		return nil, fmt.Errorf("unknown framework %q (net/http frameworks: %s)", fw, strings.Join(netHTTPFrameworks(), ", "))
	}
	sc.Only = nil
	return f.BuildScenario(sc)
}

// Limited reports whether fw is served by an http.Server given Plinth's
// default limits (NewLimitedServer, LimitListener).
func Limited(fw string) bool { return fw == "std-limits" || fw == "std-defaults" }

func netHTTPFrameworks() []string {
	var names []string
	for _, n := range Frameworks {
		if n != "fiber" {
			names = append(names, n)
		}
	}
	return names
}
