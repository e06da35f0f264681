// Command quickstart is a small JSON API served by Plinth: routes with path
// parameters, a group with its own middleware and 404, and errors as RFC 9457
// problem JSON.
//
//	go run ./examples/quickstart          # serves on :8080, or on $PLINTH_ADDR
//	curl localhost:8080/api/notes/1
package main

import (
	"cmp"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"time"
)

func main() {
	addr := cmp.Or(os.Getenv("PLINTH_ADDR"), ":8080")
	srv := &http.Server{
		Addr:              addr,
		Handler:           newApp(newStore()),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	slog.Info("quickstart listening", "addr", addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		slog.Error("server stopped", "error", err)
		os.Exit(1)
	}
}
