// Command go-std is the go-std peer of the TechEmpower benchmark (package
// internal/gostd): net/http's ServeMux and server, pgx. It reads
// DATABASE_URL, PLINTH_ADDR and PLINTH_DATABASE_MAX_CONNS.
package main

import (
	"net/http"

	"github.com/plinth-go/plinth/bench/tfb/internal/gostd"
	"github.com/plinth-go/plinth/bench/tfb/internal/tfb"
)

func main() {
	tfb.PeerMain("go-std", func(s tfb.Setup, addr string) error {
		return http.ListenAndServe(addr, gostd.New(s))
	})
}
