package redisstore_test

import (
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/redisstore"
)

// The instances of a service share one limit per client through one Redis.
func ExampleNewRateLimitStore() {
	rdb := redis.NewClient(&redis.Options{
		Addr:                  "127.0.0.1:6379",
		ContextTimeoutEnabled: true, // RateLimitStoreConfig.Timeout bounds reads and writes too
		MaxRetries:            -1,
		DialerRetries:         1, // Redis down: fail open at once
	})
	rl := middleware.NewRateLimiter(middleware.RateLimiterConfig{
		Limit: middleware.Limit{Rate: 10, Per: time.Second, Burst: 20},
		Store: redisstore.NewRateLimitStore(redisstore.RateLimitStoreConfig{Client: rdb}),
	})
	app := plinth.New()
	app.Use(rl.Middleware())
}
