package data

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/plinth-go/plinth"
)

// retryAfter is the Retry-After value of UnavailableRetryAfter, shared by
// every response (a header value is never written to).
var retryAfter = []string{strconv.Itoa(int(UnavailableRetryAfter / time.Second))}

// ReadinessTimeout bounds DB.Attach's degraded check, a ping.
const ReadinessTimeout = 2 * time.Second

// Attach installs db on app, before it is built (make db first with Open,
// which returns the configuration's errors; Attach cannot fail):
//
//   - at start, a log line naming the database in use (engine, location,
//     password redacted), a warning when it is the default SQLite file
//     because no URL was set; the PLINTH_DATABASE_* variables are declared
//     (App.DeclareEnv);
//   - a degraded check named "database" (a ping within ReadinessTimeout,
//     with App.DegradedCheck): /readyz names the database "degraded"
//     while it does not answer, and stays 200. Every instance shares the
//     database, so a failing readiness check would take them all out of
//     their load balancer at once, pages that need no database included;
//     instead, requests that need it fail fast with 503 and Retry-After
//     (below), and the pool connects again by itself once the database is
//     back. An application that wants the instance out of rotation
//     registers db.Ping with App.ReadinessCheck itself;
//   - an OnStop hook that closes db after the drain, when no request
//     uses it any more;
//   - the App's error handler first maps database errors with Problem
//     (404 for no row, 409 for a unique or foreign-key violation, 503
//     with Retry-After: UnavailableRetryAfter for a database that cannot
//     be reached), then
//     renders as before (the ErrorHandler set so far, else the core's
//     DefaultErrorHandler). Set a custom ErrorHandler before Attach, or
//     call Problem in it.
//
// Handlers reach db through the App's typed state: put it in the state
// struct (app.SetState(&State{DB: db}), then plinth.State[*State](c).DB).
func (db *DB) Attach(app *plinth.App) {
	db.announce(app)
	app.DegradedCheck("database", ReadinessTimeout, db.Ping)
	app.OnStop(func(context.Context) error { return db.Close() })
	prev := app.ErrorHandler
	app.ErrorHandler = func(c *plinth.Ctx, err error) {
		if p, ok := Problem(err); ok {
			if p.StatusCode() == http.StatusServiceUnavailable {
				c.Header()["Retry-After"] = retryAfter
			}
			err = p
		}
		if prev != nil {
			prev(c, err)
			return
		}
		plinth.DefaultErrorHandler(c, err)
	}
}
