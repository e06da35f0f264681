// Command web is a small site on Plinth's web layer: sign-in with sessions
// (memory store by default; Redis, PostgreSQL or the cookie store by
// PLINTH_SESSION_STORE), users in the app's database (SQLite in ./web.db by
// default, PostgreSQL by PLINTH_DATABASE_URL), CSRF protection, flash
// messages, pages in English, French and German (Accept-Language, or the
// switch), html/template views with a layout, a page whose inline script
// carries the CSP nonce, HTML error pages, a rate limit per client, a job
// queue (River, in the same database), cached reads (PLINTH_CACHE_URL), and
// server-sent events and a WebSocket that say goodbye when the instance
// drains. It needs no setup: the demo account is seeded.
//
//	go run ./examples/web        # serves on :8080, or on $PLINTH_ADDR
//	# then sign in at http://localhost:8080/login as demo@example.com / demo-password
//
// Several instances behind a load balancer share the database, the sessions,
// the cache and the rate limits; docs/deploy.md has the rehearsal that runs
// three of them through restarts and failures (bench/scaleout):
//
//	export PLINTH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/web
//	export PLINTH_SESSION_STORE=redis://127.0.0.1:6379/0 PLINTH_CACHE_URL=redis://127.0.0.1:6379/1
//	export PLINTH_RATE_LIMIT_STORE=redis://127.0.0.1:6379/2 PLINTH_CSRF_KEYS=... # one key for every instance
//	go run ./examples/web &
//	PLINTH_ADDR=:8081 go run ./examples/web
package main

import (
	"context"
	"log/slog"
	"os"
)

func main() {
	ctx := context.Background()
	db, err := openDB(ctx)
	if err != nil {
		slog.Error("web example: database", "error", err)
		os.Exit(1)
	}
	app, err := NewApp(ctx, db)
	if err != nil {
		db.Close()
		slog.Error("web example: startup failed", "error", err)
		os.Exit(1)
	}
	if err := app.Run(); err != nil { // drains, stops the workers, closes the database
		slog.Error("web example stopped", "error", err)
		os.Exit(1)
	}
}
