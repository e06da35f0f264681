// Command bench-server serves one benchmark scenario with one framework over
// real HTTP, for load generators such as wrk.
//
//	bench-server -framework plinth -scenario minimal   # Plinth through App.Run: its Config and PLINTH_* variables
//	bench-server -framework std -scenario json          # net/http's zero-value server
//
// The address is PLINTH_ADDR (default :8080) for every framework.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/bench"
)

func main() {
	fw := flag.String("framework", "plinth", "framework to serve: plinth, std, httprouter, chi, gin, echo")
	sc := flag.String("scenario", "minimal", "scenario to serve (see bench/scenarios.go)")
	flag.Parse()
	if err := run(*fw, *sc); err != nil {
		fmt.Fprintln(os.Stderr, "bench-server:", err)
		os.Exit(1)
	}
}

func run(fw, scenario string) error {
	s, err := bench.LoadScenario(scenario)
	if err != nil {
		return err
	}
	for _, f := range bench.Frameworks {
		if f.Name != fw {
			continue
		}
		h, err := f.Build(s.Routes)
		if err != nil {
			return err
		}
		if app, ok := h.(*plinth.App); ok {
			app.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			return app.Run()
		}
		addr := cmp.Or(os.Getenv("PLINTH_ADDR"), ":8080")
		return http.ListenAndServe(addr, h)
	}
	return fmt.Errorf("unknown framework %q", fw)
}
