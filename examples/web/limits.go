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

// siteLimit is the rate every client (its address: c.ClientIP, which reads
// X-Forwarded-For only from PLINTH_TRUSTED_PROXIES) may send at: 20
// requests a second, bursts of 40. A browser loading a page and its
// stylesheet stays far below it; a script hammering the sign-in form or
// the job queue does not.
var siteLimit = middleware.Limit{Name: "site", Rate: 20, Per: time.Second, Burst: 40}

// newLimiter returns the site's rate limiter, on the store
// PLINTH_RATE_LIMIT_STORE names. It fails open: a store that cannot be
// reached lets requests through (and is logged), since the limiter
// guards against abuse and must not turn a Redis restart into an outage.
func newLimiter() (*middleware.RateLimiter, error) {
	cfg := middleware.RateLimiterConfig{Limit: siteLimit}
	if url := os.Getenv(envRateLimitStore); url != "" {
		opts, err := redis.ParseURL(url)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", envRateLimitStore, err)
		}
		cfg.Store = redisstore.NewRateLimitStore(redisstore.RateLimitStoreConfig{Client: redis.NewClient(opts)})
	}
	return middleware.NewRateLimiter(cfg), nil
}
