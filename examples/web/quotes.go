package main

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/cache"
	"github.com/plinth-go/plinth/redisstore"
)

// The quotes are the site's cached reads: each takes quoteCost to make,
// and is kept quoteTTL in the cache PLINTH_CACHE_URL names (memory by
// default, Redis to share it between instances).
const (
	quoteCost = 20 * time.Millisecond
	quoteTTL  = time.Minute
	maxQuote  = 1000
)

// sayings are what the quotes are made of.
var sayings = []string{
	"Measure twice, cut once.",
	"A stitch in time saves nine.",
	"Well begun is half done.",
	"Slow and steady wins the race.",
	"Many hands make light work.",
	"Practice makes perfect.",
	"Actions speak louder than words.",
}

// quote is one quote, as GET /api/quotes/{n} answers it.
type quote struct {
	N    int    `json:"n"`
	Text string `json:"text"`
}

// quotes makes and caches the quotes.
type quotes struct {
	store cache.Store
	of    *cache.Of[quote]
}

// openQuotes opens the cache PLINTH_CACHE_URL names. A cache that cannot
// be reached is no error: the quote is made again (cache.Of computes
// around a failing store).
func openQuotes() (*quotes, error) {
	store, err := cache.Open(cache.OpenConfig{Openers: redisstore.CacheOpeners()})
	if err != nil {
		return nil, err
	}
	return &quotes{store: store, of: cache.New[quote](store, cache.Config[quote]{})}, nil
}

// attach adds the cache's degraded check and closes it after the drain.
func (q *quotes) attach(app *plinth.App) { cache.Attach(app, q.store) }

// quote answers quote n (1 to maxQuote), from the cache when it holds it:
// X-Cache says hit or miss. The same n always gives the same text.
func (s *site) quote(c *plinth.Ctx) error {
	n, err := strconv.Atoi(c.Param("n"))
	if err != nil || n < 1 || n > maxQuote {
		return plinth.NotFound("quotes are numbered from 1 to " + strconv.Itoa(maxQuote))
	}
	q, out, err := s.quotes.of.Fetch(c.Context(), "quote:"+strconv.Itoa(n), quoteTTL, func(ctx context.Context) (quote, error) {
		t := time.NewTimer(quoteCost) // the expensive part
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return quote{}, context.Cause(ctx)
		}
		return quote{N: n, Text: "#" + strconv.Itoa(n) + ": " + sayings[n%len(sayings)]}, nil
	})
	if err != nil {
		return err // a client that left: the core's renderer knows the request ended
	}
	hit := "hit"
	if out == cache.Miss || out == cache.Bypassed {
		hit = "miss"
	}
	c.Header().Set("X-Cache", hit)
	return c.JSON(http.StatusOK, &q)
}
