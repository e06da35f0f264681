package plinth

import (
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// defaultStack is the production layer New puts around every route and
// fallback: panic recovery, request IDs and security headers, fused into one
// function whose header values are rendered at startup. Each part can be
// dropped for profiling with PLINTH_SKIP_MIDDLEWARE=recover,requestid,
// security,timeout (logged loudly at Build).
type defaultStack struct {
	recover   bool
	requestID bool
	security  bool
	timeout   time.Duration // the App's handler timeout, 0: off
	// skipTimeout: PLINTH_SKIP_MIDDLEWARE named the timeout, which then
	// overrides groups' own timeouts too.
	skipTimeout bool
	ids         idGenerator
}

// layerSet is a set of default layers, as PLINTH_SKIP_MIDDLEWARE names them.
type layerSet struct{ recover, requestID, security, timeout bool }

// parseLayerSet reads a comma-separated list of layer names.
func parseLayerSet(list string) (layerSet, error) {
	var s layerSet
	for _, name := range strings.Split(list, ",") {
		switch name = strings.TrimSpace(strings.ToLower(name)); name {
		case "":
		case LayerRecover:
			s.recover = true
		case LayerRequestID:
			s.requestID = true
		case LayerSecurity:
			s.security = true
		case LayerTimeout:
			s.timeout = true
		default:
			return s, fmt.Errorf("unknown layer %q (known: %s, %s, %s, %s)",
				name, LayerRecover, LayerRequestID, LayerSecurity, LayerTimeout)
		}
	}
	return s, nil
}

// names lists the layers in the set, for the startup warning.
func (s layerSet) names() []string {
	var out []string
	for _, l := range [...]struct {
		on   bool
		name string
	}{{s.recover, LayerRecover}, {s.requestID, LayerRequestID}, {s.security, LayerSecurity}, {s.timeout, LayerTimeout}} {
		if l.on {
			out = append(out, l.name)
		}
	}
	return out
}

// newDefaultStack builds the layer without the parts in skip.
func newDefaultStack(skip layerSet, timeout time.Duration, logger *slog.Logger) *defaultStack {
	d := &defaultStack{recover: !skip.recover, requestID: !skip.requestID, security: !skip.security, timeout: timeout}
	if skip.timeout {
		d.timeout, d.skipTimeout = 0, true
	}
	d.ids.init()
	if names := skip.names(); len(names) > 0 {
		logger.Warn("plinth: DEFAULT MIDDLEWARE SKIPPED (PLINTH_SKIP_MIDDLEWARE): this App is not production-safe",
			"skipped", strings.Join(names, ","))
	}
	return d
}

// wrap returns next inside the default layer, writing sec, the security
// headers of next's scope, and bounding it by timeout (0: none).
func (d *defaultStack) wrap(next HandlerFunc, sec *renderedSecurity, timeout time.Duration) HandlerFunc {
	p := &parts{recover: d.recover, timeout: timeout}
	if d.requestID {
		p.ids = &d.ids
	}
	if d.security {
		p.sec = sec
	}
	return func(c *Ctx) error { return p.serve(c, next) }
}
