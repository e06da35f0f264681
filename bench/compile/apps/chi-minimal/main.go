// Command chi-minimal is the compile benchmark's minimal app on chi: one GET
// route answering a short text, GET /hello/{name}.
package main

import (
	"log"
	"net/http"
	"os"

	"github.com/go-chi/chi/v5"
)

func newHandler() http.Handler {
	r := chi.NewRouter()
	r.Get("/hello/{name}", hello)
	return r
}

func hello(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("Hello, " + chi.URLParam(r, "name") + "!\n"))
}

func main() {
	addr := os.Getenv("ADDR")
	if addr == "" {
		addr = ":8080"
	}
	log.Fatal(http.ListenAndServe(addr, newHandler()))
}
