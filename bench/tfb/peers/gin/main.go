// Command gin is the gin peer of the TechEmpower benchmark (package
// internal/gintfb). It reads DATABASE_URL, PLINTH_ADDR and
// PLINTH_DATABASE_MAX_CONNS.
package main

import (
	"net/http"

	"github.com/plinth-go/plinth/bench/tfb/internal/gintfb"
	"github.com/plinth-go/plinth/bench/tfb/internal/tfb"
)

func main() {
	tfb.PeerMain("gin", func(s tfb.Setup, addr string) error {
		return http.ListenAndServe(addr, gintfb.New(s))
	})
}
