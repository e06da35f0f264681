package redisstore_test

import (
	"context"
	"log"

	"github.com/redis/go-redis/v9"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/redisstore"
	"github.com/plinth-go/plinth/web"
)

// A SessionStore on a client of the application's own, which it may share with the
// rate limiter's Redis store (NewRateLimitStore).
func ExampleNewSessionStore() {
	rdb := redis.NewClient(&redis.Options{
		Addr:                  "127.0.0.1:6379",
		ContextTimeoutEnabled: true, // the request's deadline bounds each call
	})
	defer rdb.Close()

	sessions, err := web.NewSessions(web.SessionsConfig{
		Store: redisstore.NewSessionStore(redisstore.SessionStoreConfig{Client: rdb}),
	})
	if err != nil {
		log.Fatal(err)
	}
	app := plinth.New()
	sessions.Attach(app)
}

// The store chosen by URL: PLINTH_SESSION_STORE=redis://127.0.0.1:6379/0
// (or StoreURL) opens it with OpenSessionStore.
func ExampleOpenSessionStore() {
	sessions, err := web.NewSessions(web.SessionsConfig{
		Openers: map[string]web.OpenStore{"redis": redisstore.OpenSessionStore, "rediss": redisstore.OpenSessionStore},
	})
	if err != nil {
		log.Fatal(err)
	}
	app := plinth.New()
	sessions.Attach(app) // closes the store after the drain

	// Or directly:
	store, err := redisstore.OpenSessionStore(context.Background(), "redis://127.0.0.1:6379/0")
	if err != nil {
		log.Fatal(err) // only a URL that cannot be parsed
	}
	defer store.(*redisstore.SessionStore).Close()
}
