package bench

import (
	"fmt"
	"net/http"
	"strings"
)

// HTTPHandler returns the handler cmd/bench-server (and cmd/instr) serve
// for fw, one of the net/http frameworks of HTTPFrameworks (not fiber), and
// sc. std-limits and std-defaults are net/http's ServeMux (std) and
// std-defaults' hand-written default layer; over HTTP every framework serves
// every scenario (default-stack is minimal for all but Plinth,
// middleware-fused is middleware for all but Plinth), so sc.Only is ignored.
// Serve std-limits and std-defaults with NewLimitedServer on LimitListener
// (LimitedFramework).
func HTTPHandler(fw string, sc Scenario) (http.Handler, error) {
	name := fw
	if fw == "std-limits" || fw == "std-defaults" && sc.Stack != StackNone {
		// The middleware scenarios give net/http its own hand-written stack
		// (std's); std-defaults differs from std-limits on the others only.
		name = "std"
	}
	f, ok := FrameworkNamed(name)
	if !ok || fw == "fiber" {
		return nil, fmt.Errorf("unknown framework %q (net/http frameworks: %s)", fw, strings.Join(netHTTPFrameworks(), ", "))
	}
	sc.Only = nil
	return f.BuildScenario(sc)
}

// LimitedFramework reports whether fw is served by an http.Server given
// Plinth's default limits (NewLimitedServer, LimitListener).
func LimitedFramework(fw string) bool { return fw == "std-limits" || fw == "std-defaults" }

func netHTTPFrameworks() []string {
	var names []string
	for _, n := range HTTPFrameworks {
		if n != "fiber" {
			names = append(names, n)
		}
	}
	return names
}
