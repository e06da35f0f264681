// Command bench-server serves one benchmark scenario with one framework over
// real HTTP, for cmd/loadgen, wrk and bench/run-http.sh.
//
//	bench-server -framework plinth-new -scenario minimal  # plinth.New() through App.Run: its defaults and PLINTH_* variables
//	bench-server -framework std-limits -scenario json      # net/http with Plinth's default limits
//	bench-server -framework gin -scenario fullstack        # the full production stack (plinth-new, chi, gin, echo)
//
// Frameworks:
//
//	plinth-new  plinth.New() (the default layer) served by App.Run
//	plinth      plinth.Bare() served by App.Run (the same server limits, no default layer)
//	std-limits  net/http.ServeMux on an http.Server given Plinth's default limits (bench/internal/httpserve/limits.go)
//	std-defaults  std-limits plus, hand-written, the work of plinth.New()'s default layer (bench/internal/suite/fw_stddefaults.go)
//	std         net/http.ServeMux on the zero-value http.Server
//	httprouter, chi, gin, echo   on the zero-value http.Server, as their docs start them
//	fiber       fiber v2 (fasthttp) with its defaults
//	plinth-fast, plinth-new-fast   plinth and plinth-new on Plinth's own engine (Config.Engine "fast")
//	fasthttp    fasthttp's native server and handler (minimal and json only)
//
// The address is -addr, else PLINTH_ADDR, else :8080. The process serves
// until SIGINT or SIGTERM.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/bench/internal/httpserve"
	"github.com/plinth-go/plinth/bench/internal/suite"
)

// Names lists the frameworks bench-server serves, in report order.
var Names = httpserve.Frameworks

func main() {
	fw := flag.String("framework", "plinth-new", "framework to serve: "+strings.Join(append(Names, httpserve.EngineFrameworks...), ", "))
	sc := flag.String("scenario", "minimal", "scenario to serve: "+strings.Join(suite.ScenarioNames, ", ")+", "+httpserve.FullStack)
	addr := flag.String("addr", "", "listen address (default PLINTH_ADDR, else :8080)")
	printPath := flag.Bool("print-path", false, "print the path of the scenario's timed request and exit (for load generators)")
	printHeaders := flag.Bool("print-headers", false, "print the header lines the scenario's requests carry, one a line, and exit (for load generators)")
	flag.Parse()
	if *printPath {
		path, err := httpserve.RequestPath(*sc)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench-server:", err)
			os.Exit(1)
		}
		fmt.Println(path)
		return
	}
	if *printHeaders {
		for _, h := range httpserve.RequestHeaders(*sc) {
			fmt.Println(h)
		}
		return
	}
	if err := run(*fw, *sc, cmp.Or(*addr, os.Getenv("PLINTH_ADDR"), ":8080")); err != nil {
		fmt.Fprintln(os.Stderr, "bench-server:", err)
		os.Exit(1)
	}
}

func run(fw, scenario, addr string) error {
	var h http.Handler
	if scenario == httpserve.FullStack {
		var err error
		if h, err = httpserve.HandlerNamed(fw, scenario); err != nil {
			return err
		}
	} else {
		sc, err := suite.LoadScenario(scenario)
		if err != nil {
			return err
		}
		if fw == httpserve.FastHTTP {
			srv, err := httpserve.FastHTTPServer(scenario)
			if err != nil {
				return err
			}
			return srv.ListenAndServe(addr)
		}
		if fw == "fiber" {
			app, err := newFiber(sc)
			if err != nil {
				return err
			}
			return app.Listen(addr)
		}
		if h, err = httpserve.Handler(fw, sc); err != nil {
			return err
		}
	}
	if app, ok := h.(*plinth.App); ok {
		app.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		app.Config.Addr = addr
		os.Unsetenv("PLINTH_ADDR") // the flag wins
		return app.Run()
	}
	if httpserve.Limited(fw) {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return err
		}
		return httpserve.NewLimitedServer(h).Serve(httpserve.LimitListener(ln))
	}
	return http.ListenAndServe(addr, h)
}
