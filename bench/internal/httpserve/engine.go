package httpserve

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/bench/internal/suite"
	"github.com/valyala/fasthttp"
)

// The frameworks on Plinth's own HTTP/1.1 engine, served by
// cmd/instr, cmd/instr-gate and cmd/bench-server beside the others:
//
//	plinth-fast      plinth.Bare() on the engine (Config.Engine = "fast")
//	plinth-new-fast  plinth.New() on the engine
//	fasthttp         fasthttp's native handler (no net/http, no router):
//	                 minimal and json only, the yardstick of the engine
const (
	// EngineSuffix turns plinth or plinth-new into the same App served by
	// Plinth's engine: any scenario the base framework serves.
	EngineSuffix = "-fast"
	// FastHTTP is fasthttp's native server and handler.
	FastHTTP = "fasthttp"
)

// EngineFrameworks are the engine's frameworks and its yardstick, in report
// order.
var EngineFrameworks = []string{"plinth-fast", "plinth-new-fast", FastHTTP}

// engineBase returns plinth or plinth-new for plinth-fast or
// plinth-new-fast.
func engineBase(fw string) (string, bool) {
	base, ok := strings.CutSuffix(fw, EngineSuffix)
	if !ok || base != "plinth" && base != "plinth-new" {
		return "", false
	}
	return base, true
}

// onEngine sets the App h to be served by Plinth's engine.
func onEngine(fw string, h http.Handler, err error) (http.Handler, error) {
	if err != nil {
		return nil, err
	}
	app, ok := h.(*plinth.App)
	if !ok {
		return nil, fmt.Errorf("%s: the scenario's handler is a %T, not a *plinth.App", fw, h)
	}
	app.Config.Engine = plinth.EngineFast
	return app, nil
}

// FastHTTPServer returns fasthttp's server with a native handler for the
// scenario: minimal (any path: 200 "Hello, World!" text/plain) or json
// (GET /accounts/{id}: suite.NewAccount as JSON, as std writes it). The
// server's settings are fasthttp's defaults, as its README starts one.
func FastHTTPServer(scenario string) (*fasthttp.Server, error) {
	var h fasthttp.RequestHandler
	switch scenario {
	case "minimal":
		h = func(ctx *fasthttp.RequestCtx) {
			ctx.SetContentType("text/plain; charset=utf-8")
			ctx.WriteString(suite.Hello)
		}
	case "json":
		h = func(ctx *fasthttp.RequestCtx) {
			path := string(ctx.Path())
			id, ok := strings.CutPrefix(path, "/accounts/")
			if !ok {
				ctx.SetStatusCode(http.StatusNotFound)
				return
			}
			n, err := strconv.Atoi(id)
			if err != nil {
				ctx.SetStatusCode(http.StatusBadRequest)
				ctx.WriteString(suite.InvalidID)
				return
			}
			acct := suite.NewAccount(n)
			ctx.SetContentType("application/json")
			json.NewEncoder(ctx).Encode(&acct)
		}
	default:
		return nil, fmt.Errorf("%s serves minimal and json, not %q", FastHTTP, scenario)
	}
	return &fasthttp.Server{Handler: h}, nil
}

// ServeFastHTTP serves scenario with fasthttp on ln; stop ends it.
func ServeFastHTTP(scenario string, ln net.Listener) (stop func(), served <-chan error, err error) {
	srv, err := FastHTTPServer(scenario)
	if err != nil {
		return nil, nil, err
	}
	ch := make(chan error, 1)
	go func() { ch <- srv.Serve(ln) }()
	return func() { srv.Shutdown() }, ch, nil
}
