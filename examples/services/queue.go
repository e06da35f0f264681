package main

import (
	"context"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/cache"
	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/jobs"
	riverjobs "github.com/plinth-go/plinth/jobs/riverjobs"
	"github.com/plinth-go/plinth/redisstore"
)

// openQueue opens the job queue on db (River's tables are migrated by
// migrate) and ties it to app's lifecycle with Client.Attach: PLINTH_ROLE says
// whether this process runs the workers and the periodic jobs (worker,
// all) or only enqueues (web); PLINTH_JOB_TIMEOUT bounds an attempt; the
// workers stop with the drain (a job still running near the end of the
// grace is handed back); the readiness check "queue" pings the queue's
// store.
func openQueue(_ context.Context, app *plinth.App, db *data.DB) (*jobs.Client, error) {
	backend, err := riverjobs.New(db, riverjobs.Config{})
	if err != nil {
		return nil, err
	}
	client, err := jobs.NewClient(jobs.Config{Backend: backend})
	if err != nil {
		return nil, err
	}
	client.Attach(app)
	return client, nil
}

// every enqueues args every period, once per period however many
// instances run (jobs.Client.Every: unique per tick).
func every(client *jobs.Client, period time.Duration, args jobs.Args) error {
	return client.Every(period, func() jobs.Args { return args }, nil)
}

// openCache opens the Store PLINTH_CACHE_URL names (memory: by default,
// redis:// and rediss:// through the redisstore module) and adds its
// degraded readiness check "cache" (cache.Attach).
func openCache(app *plinth.App) (cache.Store, error) {
	store, err := cache.Open(cache.OpenConfig{Openers: redisstore.CacheOpeners()})
	if err != nil {
		return nil, err
	}
	cache.Attach(app, store)
	return store, nil
}
