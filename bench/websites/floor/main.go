// Command floor is the bare net/http floor of bench/laravel/run.sh: the
// measured routes answered with fixed bytes (the pages examples/web
// renders, captured once), with no headers beyond net/http's, no session,
// no CSRF, no locale, no view and no password hash. No site does less; it
// shows what the loopback, the kernel and wrk cost on this machine.
//
//	go run ./floor    # serves on 127.0.0.1:8080, or on $ADDR
package main

import (
	"log"
	"net/http"
	"os"
)

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Welcome · Plinth web example</title>
  <link rel="stylesheet" href="/static/site.css">
</head>
<body>
  <main>
<h1>Welcome</h1>
<p>A small site built with Plinth's web layer: sessions, CSRF protection, sign-in, flash messages, locales, views and HTML error pages.</p>
  </main>
</body>
</html>
`

func main() {
	mux := http.NewServeMux()
	hello := []byte("Hello, World!")
	html := []byte(page)
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, _ *http.Request) {
		w.Header()["Content-Type"] = []string{"text/plain; charset=utf-8"}
		_, _ = w.Write(hello)
	})
	doc := func(w http.ResponseWriter, _ *http.Request) {
		w.Header()["Content-Type"] = []string{"text/html; charset=utf-8"}
		_, _ = w.Write(html)
	}
	mux.HandleFunc("GET /{$}", doc)
	mux.HandleFunc("GET /account", doc)
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		http.Redirect(w, r, "/account", http.StatusSeeOther)
	})
	addr := os.Getenv("ADDR")
	if addr == "" {
		addr = "127.0.0.1:8080"
	}
	log.Printf("floor: serving on %s", addr)
	log.Fatal(http.ListenAndServe(addr, mux))
}
