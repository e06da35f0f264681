// Package jobs runs work after the request: typed job arguments, a durable
// queue behind a Backend (River on the data layer's database, in the
// jobs/riverjobs module), workers tied to the App's lifecycle, and periodic
// jobs.
//
// A job kind is a Go type implementing Args, encoded as JSON. Handle
// registers the kind and its worker on a Client; Enqueue refuses an
// argument value whose kind is not registered, does not encode, or encodes
// to more than MaxArgsBytes, so that a bad job fails at the call that made
// it, never at work time.
//
// NewClient makes a Client over a Backend and resolves its Config (the
// environment included); Client.Attach installs it on an App: workers start in the worker and all
// roles (PLINTH_ROLE), stop softly when the drain starts and are
// hard-stopped before the grace period ends (StopMargin), the running jobs
// handed back to the queue; a readiness check named "queue" follows the
// backend; `plinth jobs` lists, retries and cancels jobs through the
// application's own binary. Every and Cron enqueue periodic jobs once per
// tick across instances. The jobstest package is an in-memory Backend for
// tests; docs/jobs.md has the whole picture.
//
// Delivery is at least once: a job whose process dies mid-run runs again,
// so a worker's side effects must be safe to repeat (or recorded in the
// same transaction as the work they stand for).
//
// The package depends on the standard library only; an application that
// does not use a backend module adds nothing to its build list.
package jobs
