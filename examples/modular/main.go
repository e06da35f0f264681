// Command modular is a small shop built from Plinth modules (package
// module): users, orders and payments, each a package with its own
// repository, controller and typed operations, wired at startup by their
// constructors' types. Orders are placed by a known user only (a guard on
// POST /orders reading X-User), every module's routes carry a
// Server-Timing header (an interceptor), the payments client connects and
// disconnects with the App (OnStart, OnStop), and /openapi.json groups
// the operations by module.
//
// The data is kept in SQLite in ./modular.db by default, or in PostgreSQL
// when PLINTH_DATABASE_URL (or DATABASE_URL) is a postgres:// URL.
//
//	go run ./examples/modular           # serves on :8080, or on $PLINTH_ADDR
//	curl localhost:8080/users
//	curl -i -X POST localhost:8080/orders -H 'X-User: ada' -H 'Content-Type: application/json' -d '{"item":"teapot","amount_cents":2500}'
//	curl -i -X POST localhost:8080/orders -d '{"item":"teapot","amount_cents":2500}'   # 401: no X-User
//	curl localhost:8080/openapi.json
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/plinth-go/plinth/data"
)

func main() {
	if err := run(context.Background()); err != nil {
		slog.Error("modular stopped", "error", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	cfg := data.Config{}
	if os.Getenv("PLINTH_DATABASE_URL") == "" && os.Getenv("DATABASE_URL") == "" {
		cfg.URL = "sqlite:./modular.db" // a file of its own, apart from the quickstart's ./data.db
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
	app, err := newApp(db, slog.Default())
	if err != nil {
		db.Close()
		return err
	}
	return app.Run() // closes db after the drain (db.Attach)
}
