package pgstore_test

import (
	"context"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/data/pgstore"
	"github.com/plinth-go/plinth/web"
)

// A Store on a pool of the application's own (the data module's, from
// data.DB.Pgx, serves as well).
func ExampleNew() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	store, err := pgstore.New(ctx, pgstore.Config{Pool: pool}) // creates plinth_sessions if missing
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close() // stops the cleanup goroutine; the pool stays open

	sessions, err := web.NewSessions(web.SessionsConfig{Store: store})
	if err != nil {
		log.Fatal(err)
	}
	app := plinth.New()
	sessions.Attach(app)
}

// The store chosen by URL: PLINTH_SESSION_STORE=postgres://user@host/db (or
// StoreURL) opens it with Open.
func ExampleOpen() {
	sessions, err := web.NewSessions(web.SessionsConfig{
		Openers: map[string]web.OpenStore{"postgres": pgstore.Open, "postgresql": pgstore.Open},
	})
	if err != nil {
		log.Fatal(err)
	}
	app := plinth.New()
	sessions.Attach(app) // closes the store, and its pool, after the drain
}
