// Command services shows Plinth's jobs, cache and mail together, in a form
// anyone can check from outside: a signup that inserts a user and enqueues
// its welcome mail in one transaction, jobs whose side effects are rows in
// the app's own database, unique and periodic jobs, a report computed once
// behind a cache with tags, and a readiness probe that names each service.
//
// With no setup it runs on SQLite (./services.db), a memory cache and mail
// written to the log:
//
//	go run ./examples/services                        # serves on :8080, or $PLINTH_ADDR
//	curl -X POST localhost:8080/signup -H 'Content-Type: application/json' -d '{"email":"ada@example.com","name":"Ada"}'
//
// On PostgreSQL, Redis and an SMTP server, by environment:
//
//	PLINTH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/services \
//	PLINTH_CACHE_URL=redis://127.0.0.1:6379/0 \
//	PLINTH_MAIL_URL='smtp://127.0.0.1:1025?tls=none' \
//	PLINTH_ROLE=web go run ./examples/services       # and PLINTH_ROLE=worker in another
//
// The job endpoints and the cache invalidation are for operators: they
// take PLINTH_ADMIN_TOKEN as a bearer token, and are disabled without it.
// README.md beside this file describes each endpoint and variable.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/plinth-go/plinth/data"
)

// defaultDatabase is the SQLite file used when no database URL is set.
const defaultDatabase = "sqlite:./services.db"

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "services stopped: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unknown argument %q (the example takes none; configure it with PLINTH_* variables, README.md)", args[0])
	}
	cfg := data.Config{}
	if os.Getenv("PLINTH_DATABASE_URL") == "" && os.Getenv("DATABASE_URL") == "" {
		cfg.URL = defaultDatabase
	}
	db, err := data.Open(ctx, cfg)
	if err != nil {
		return err
	}
	applied, err := migrate(ctx, db)
	if err != nil {
		db.Close()
		return err
	}
	for _, m := range applied {
		slog.Info("migration applied", "name", m.Name)
	}
	app, err := newApp(ctx, db)
	if err != nil {
		db.Close()
		return err
	}
	return app.Run() // drains the requests, stops the workers (handing back what outlives the grace), closes db
}
