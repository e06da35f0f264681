// Command quickstart is a small JSON API served by Plinth: routes with path
// parameters, a group with its own middleware and 404, errors as RFC 9457
// problem JSON, and Plinth's production server loop (timeouts, limits,
// health probes, graceful drain on SIGINT/SIGTERM).
//
//	go run ./examples/quickstart          # serves on :8080, or on $PLINTH_ADDR
//	curl localhost:8080/api/notes/1
package main

import (
	"log/slog"
	"os"
)

func main() {
	if err := newApp(newStore()).Run(); err != nil {
		slog.Error("quickstart stopped", "error", err)
		os.Exit(1)
	}
}
