package main

import (
	"context"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/cache"
	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/jobs"
	riverjobs "github.com/plinth-go/plinth/jobs/river"
)

// openQueue opens the job queue on db (River's tables migrated first) and
// ties its workers to app's lifecycle: PLINTH_ROLE says whether this
// process runs them (worker, all) or only enqueues (web), and
// PLINTH_JOB_TIMEOUT bounds an attempt.
func openQueue(ctx context.Context, app *plinth.App, db *data.DB) (*jobs.Client, error) {
	backend, err := riverjobs.New(db, riverjobs.Config{})
	if err != nil {
		return nil, err
	}
	client := jobs.NewClient(backend)
	if err := attachJobs(app, client); err != nil {
		return nil, err
	}
	app.ReadinessCheck("queue", 2*time.Second, backend.Ping)
	return client, nil
}

// every enqueues args every period, once per period across the instances
// sharing the queue.
func every(app *plinth.App, client *jobs.Client, period time.Duration, args jobs.Args) error {
	return periodic(app, client, period, args)
}

// openCache opens the Store PLINTH_CACHE_URL names (memory: by default,
// redis:// through the cache/redis module) and adds its degraded readiness
// check "cache".
func openCache(app *plinth.App) (cache.Store, error) {
	store, err := cache.Open(cache.Config{})
	if err != nil {
		return nil, err
	}
	cache.Attach(app, store)
	return store, nil
}
