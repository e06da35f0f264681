// Package cancelctx holds Ctx, a context.Context that its owner cancels,
// made to live inside a larger per-request object: it costs no allocation
// until someone waits on it.
//
// The request context of Plinth's engine and the deadline context of the
// handler timeout are both one. A context derived from it
// (context.WithCancel, WithTimeout, AfterFunc) starts no goroutine: Ctx
// implements AfterFunc, which the context package uses, for a parent type it
// does not know, instead of a goroutine waiting on Done.
package cancelctx

import (
	"context"
	"sync"
	"time"
)

// Ctx is a context with its parent's values, deadline and cancellation, and
// a cancellation of its own (Cancel). Its done channel, and the hook that
// forwards the parent's cancellation, are made on the first call to Done or
// AfterFunc. The zero value is not usable: Reset gives it a parent. It must
// not be copied after first use.
type Ctx struct {
	parent     context.Context
	mu         sync.Mutex
	done       chan struct{}
	err        error
	stopParent func() bool
	afters     map[*afterFunc]struct{} // callbacks registered by AfterFunc, run once at Cancel
}

// afterFunc is one AfterFunc registration; its address is its identity.
type afterFunc struct{ f func() }

// Reset makes c a fresh context under parent. Only for a Ctx that nobody
// else ever saw (no Done, no AfterFunc, not handed out): its owner may then
// reuse it instead of allocating another.
func (c *Ctx) Reset(parent context.Context) {
	c.parent, c.err = parent, nil
}

// Parent returns the parent Reset gave.
func (c *Ctx) Parent() context.Context { return c.parent }

// Deadline is the parent's.
func (c *Ctx) Deadline() (time.Time, bool) { return c.parent.Deadline() }

// Done returns a channel closed when c is cancelled or its parent is.
func (c *Ctx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.initDone()
	return c.done
}

// initDone makes the done channel and hooks the parent's cancellation, once.
// c.mu is held.
func (c *Ctx) initDone() {
	if c.done != nil {
		return
	}
	c.done = make(chan struct{})
	if c.err != nil {
		close(c.done)
	} else {
		c.stopParent = context.AfterFunc(c.parent, func() { c.Cancel(c.parent.Err()) })
	}
}

// AfterFunc arranges for f to run once c is cancelled (by Cancel or by its
// parent), and returns a stop function that unregisters it, reporting
// whether it did so before f ran; if c is already cancelled, f runs at once.
// f runs on the goroutine that cancels c, without c's lock held: the context
// package only registers callbacks that cancel a derived context (and
// context.AfterFunc's own, which start their goroutine themselves).
func (c *Ctx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		f()
		return func() bool { return false }
	}
	c.initDone()
	a := &afterFunc{f: f}
	if c.afters == nil {
		c.afters = make(map[*afterFunc]struct{})
	}
	c.afters[a] = struct{}{}
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if _, ok := c.afters[a]; !ok {
			return false
		}
		delete(c.afters, a)
		return true
	}
}

// Err is the error Cancel was given, or else the parent's.
func (c *Ctx) Err() error {
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	if err != nil {
		return err
	}
	return c.parent.Err()
}

// Value is the parent's.
func (c *Ctx) Value(key any) any { return c.parent.Value(key) }

// Cancel ends c with err (non-nil), once, and then runs the callbacks that
// AfterFunc registered, outside the lock (they read c.Err). When nobody
// waited on c it costs a lock and nothing else.
func (c *Ctx) Cancel(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	if c.done != nil {
		close(c.done)
	}
	if c.stopParent != nil {
		c.stopParent()
	}
	afters := c.afters
	c.afters = nil
	c.mu.Unlock()
	if afters == nil {
		return // the usual case; starting a map iteration costs even on nil
	}
	for a := range afters {
		a.f()
	}
}
