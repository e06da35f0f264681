// Package jobs runs work after the request: typed job arguments, a durable
// queue behind a Backend (River on the data layer's database, in the
// jobs/river module), workers tied to the App's lifecycle, and periodic
// jobs.
//
// A job kind is a Go type implementing Args, encoded as JSON. Handle
// registers the kind and its worker on a Client; Enqueue refuses an
// argument value whose kind is not registered, does not encode, or encodes
// to more than MaxArgsBytes, so that a bad job fails at the call that made
// it, never at work time.
//
// Delivery is at least once: a job whose process dies mid-run runs again,
// so a worker's side effects must be safe to repeat (or recorded in the
// same transaction as the work they stand for).
//
// The package depends on the standard library only; an application that
// does not use a backend module adds nothing to its build list.
package jobs
