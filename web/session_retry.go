package web

import (
	"context"
	"errors"
	"time"
)

// The intervals between the attempts of a store call that failed: the
// first retry after storeRetryFirst, each next one after twice the last,
// up to storeRetryMax. A Redis restarted with its append-only file, or a
// PostgreSQL restarted in fast mode, is back within a second or two: the
// requests that meet it are answered that much later, instead of with a
// 503, and at most about 20 calls a request reach a store that is down for
// the whole default StoreTimeout.
const (
	storeRetryFirst = 20 * time.Millisecond
	storeRetryMax   = 250 * time.Millisecond
)

// retryStore asks the store again, after err from a first call, until a
// call succeeds or the store's deadline (ctx's, StoreTimeout after the
// request's first store call) would pass before the next attempt. stop,
// when not nil, ends the wait too: the request's own context for a load
// (its client gone, nothing to answer), nil for a save (the handler's
// changes are saved whatever the client does). It returns the last error.
//
// Every call is safe to repeat: Load, Update and Delete are idempotent, and
// a Create repeated after a failure that its write outlived finds the
// session it wrote (ErrSessionExists: the ID is 256 random bits drawn for
// this request), which retryStore reports as done. Without a store timeout
// (a negative StoreTimeout) nothing is retried: nothing would bound the
// retries but the request's own deadline, which a save does not have.
func (sess *Session) retryStore(ctx context.Context, stop <-chan struct{}, err error, call func(context.Context) error) error {
	deadline, ok := ctx.Deadline()
	if !ok || sess.s.set.storeWait <= 0 {
		return err
	}
	wait := storeRetryFirst
	for {
		if errors.Is(err, ErrSessionExists) || ctx.Err() != nil || time.Until(deadline) <= wait {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return err
		case <-stop:
			t.Stop()
			return err
		}
		err = call(ctx)
		if err == nil || errors.Is(err, ErrSessionExists) {
			return nil // a Create's own earlier write, if ErrSessionExists
		}
		wait = min(2*wait, storeRetryMax)
	}
}
