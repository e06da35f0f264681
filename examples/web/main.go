// Command web is a small site on Plinth's web layer: sign-in with sessions
// (memory store by default; Redis, PostgreSQL or the cookie store by
// PLINTH_SESSION_STORE), CSRF protection, flash messages, pages in English,
// French and German (Accept-Language, or the switch), html/template views
// with a layout, a page whose inline script carries the CSP nonce, and HTML
// error pages. It needs no setup: the demo account is seeded.
//
//	go run ./examples/web        # serves on :8080, or on $PLINTH_ADDR
//	# then sign in at http://localhost:8080/login as demo@example.com / demo-password
//
//	# two instances sharing their sessions: every instance gets the same store
//	PLINTH_SESSION_STORE=redis://127.0.0.1:6379/0 go run ./examples/web &
//	PLINTH_SESSION_STORE=redis://127.0.0.1:6379/0 PLINTH_ADDR=:8081 go run ./examples/web
package main

import (
	"log/slog"
	"os"
)

func main() {
	app, err := NewApp()
	if err != nil {
		slog.Error("web example: startup failed", "error", err)
		os.Exit(1)
	}
	if err := app.Run(); err != nil {
		slog.Error("web example stopped", "error", err)
		os.Exit(1)
	}
}
