// Command tfb-server is Plinth's TechEmpower benchmark server (package
// internal/plinthtfb). It reads DATABASE_URL (PostgreSQL) and PLINTH_ADDR:
//
//	PLINTH_ADDR=127.0.0.1:8080 DATABASE_URL=postgres://postgres@127.0.0.1:5432/hello_world?sslmode=disable go run ./cmd/tfb-server
//
// TFB_POOL_MODE=per-worker swaps the pgx pool for one connection per worker
// goroutine; the PLINTH_DATABASE_* variables configure the pool.
package main

import (
	"fmt"
	"os"

	"github.com/plinth-go/plinth/bench/tfb/internal/plinthtfb"
)

func main() {
	if err := plinthtfb.Main(); err != nil {
		fmt.Fprintln(os.Stderr, "tfb-server:", err)
		os.Exit(1)
	}
}
