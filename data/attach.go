package data

import (
	"context"
	"time"

	"github.com/plinth-go/plinth"
)

// ReadinessTimeout bounds DB.Attach's readiness check, a ping.
const ReadinessTimeout = 2 * time.Second

// Attach installs db on app, before it is built (make db first with Open,
// which returns the configuration's errors; Attach cannot fail):
//
//   - at start, a log line naming the database in use (engine, location,
//     password redacted), a warning when it is the default SQLite file
//     because no URL was set; the PLINTH_DATABASE_* variables are declared
//     (App.DeclareEnv);
//   - a readiness check named "database" (a ping within ReadinessTimeout):
//     /readyz answers 503 while the database does not answer, and 200
//     again once it does;
//   - an OnStop hook that closes db after the drain, when no request
//     uses it any more;
//   - the App's error handler first maps database errors with Problem
//     (404 for no row, 409 for a unique or foreign-key violation), then
//     renders as before (the ErrorHandler set so far, else the core's
//     DefaultErrorHandler). Set a custom ErrorHandler before Attach, or
//     call Problem in it.
//
// Handlers reach db through the App's typed state: put it in the state
// struct (app.SetState(&State{DB: db}), then plinth.State[*State](c).DB).
func (db *DB) Attach(app *plinth.App) {
	db.announce(app)
	app.ReadinessCheck("database", ReadinessTimeout, db.Ping)
	app.OnStop(func(context.Context) error { return db.Close() })
	prev := app.ErrorHandler
	app.ErrorHandler = func(c *plinth.Ctx, err error) {
		if p, ok := Problem(err); ok {
			err = p
		}
		if prev != nil {
			prev(c, err)
			return
		}
		plinth.DefaultErrorHandler(c, err)
	}
}
