package redisstore_test

import (
	"context"
	"log"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/web"
	"github.com/plinth-go/plinth/web/redisstore"
	"github.com/redis/go-redis/v9"
)

// A Store on a client of the application's own, which it may share with the
// rate limiter's Redis store (github.com/plinth-go/plinth/middleware/redisstore).
func ExampleNew() {
	rdb := redis.NewClient(&redis.Options{
		Addr:                  "127.0.0.1:6379",
		ContextTimeoutEnabled: true, // the request's deadline bounds each call
	})
	defer rdb.Close()

	sessions, err := web.NewSessions(web.SessionsConfig{
		Store: redisstore.New(redisstore.Config{Client: rdb}),
	})
	if err != nil {
		log.Fatal(err)
	}
	app := plinth.New()
	sessions.Attach(app)
}

// The store chosen by URL: PLINTH_SESSION_STORE=redis://127.0.0.1:6379/0
// (or StoreURL) opens it with Open.
func ExampleOpen() {
	sessions, err := web.NewSessions(web.SessionsConfig{
		Openers: map[string]web.OpenStore{"redis": redisstore.Open, "rediss": redisstore.Open},
	})
	if err != nil {
		log.Fatal(err)
	}
	app := plinth.New()
	sessions.Attach(app) // closes the store after the drain

	// Or directly:
	store, err := redisstore.Open(context.Background(), "redis://127.0.0.1:6379/0")
	if err != nil {
		log.Fatal(err) // only a URL that cannot be parsed
	}
	defer store.(*redisstore.Store).Close()
}
