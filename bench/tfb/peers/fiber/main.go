// Command fiber is the fiber peer of the TechEmpower benchmark (package
// internal/fibertfb). It reads DATABASE_URL, PLINTH_ADDR and
// PLINTH_DATABASE_MAX_CONNS.
package main

import (
	"github.com/plinth-go/plinth/bench/tfb/internal/fibertfb"
	"github.com/plinth-go/plinth/bench/tfb/internal/tfb"
)

func main() {
	tfb.PeerMain("fiber", func(s tfb.Setup, addr string) error {
		return fibertfb.New(s).Listen(addr)
	})
}
