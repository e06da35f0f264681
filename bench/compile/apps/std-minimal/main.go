// Command std-minimal is the compile benchmark's minimal app on net/http
// alone: one GET route answering a short text, GET /hello/{name}.
package main

import (
	"log"
	"net/http"
	"os"
)

func newHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hello/{name}", hello)
	return mux
}

func hello(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("Hello, " + r.PathValue("name") + "!\n"))
}

func main() {
	addr := os.Getenv("ADDR")
	if addr == "" {
		addr = ":8080"
	}
	log.Fatal(http.ListenAndServe(addr, newHandler()))
}
