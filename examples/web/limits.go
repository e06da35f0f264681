package main

import (
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/redisstore"
)

// envRateLimitStore names the rate limiter's store: empty for one in this
// process's memory, a redis:// URL for one that every instance shares.
const envRateLimitStore = "PLINTH_RATE_LIMIT_STORE"

// newLimiter returns the site's rate limiter, on the store
// PLINTH_RATE_LIMIT_STORE names, and a function that closes the store's
// client (nil for the memory store). Every client (its address: c.ClientIP,
// which reads X-Forwarded-For only from PLINTH_TRUSTED_PROXIES) may send 20
// requests a second, in bursts of 40: a browser loading a page and its
// stylesheet stays far below it; a script hammering the sign-in form or the
// job queue does not. It fails open: a store that cannot be reached lets
// requests through (and is logged), since the limiter guards against abuse
// and must not turn a Redis restart into an outage.
func newLimiter() (*middleware.RateLimiter, func() error, error) {
	cfg := middleware.RateLimiterConfig{Limit: middleware.Limit{Name: "site", Rate: 20, Per: time.Second, Burst: 40}}
	var closeStore func() error
	if url := os.Getenv(envRateLimitStore); url != "" {
		opts, err := redis.ParseURL(url)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", envRateLimitStore, err)
		}
		client := redis.NewClient(opts)
		cfg.Store = redisstore.NewRateLimitStore(redisstore.RateLimitStoreConfig{Client: client})
		closeStore = client.Close
	}
	return middleware.NewRateLimiter(cfg), closeStore, nil
}
