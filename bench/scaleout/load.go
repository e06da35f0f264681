package main

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// load is the open-loop load: each client sends a request every
// clients/rate seconds, each started at its scheduled time in a goroutine
// of its own whatever the previous ones are doing, so that a slow phase
// shows as latency (measured from the scheduled time), not as fewer
// requests. The clients' schedules are staggered evenly over one period.
type load struct {
	clients []*client
	rate    float64 // requests per second, all clients together
	wg      sync.WaitGroup
	stopped chan struct{}
	done    sync.WaitGroup // the schedulers
}

// newLoad prepares the load of the clients at rate.
func newLoad(clients []*client, rate float64) *load {
	return &load{clients: clients, rate: rate, stopped: make(chan struct{})}
}

// start starts every client's schedule at t0.
func (l *load) start(t0 time.Time) {
	period := time.Duration(float64(time.Second) * float64(len(l.clients)) / l.rate)
	for i, c := range l.clients {
		offset := period * time.Duration(i) / time.Duration(len(l.clients))
		l.done.Add(1)
		go l.schedule(c, t0.Add(offset), period)
	}
}

// schedule sends c's requests at next, next+period, ... until stopped.
func (l *load) schedule(c *client, next time.Time, period time.Duration) {
	defer l.done.Done()
	timer := time.NewTimer(time.Until(next))
	defer timer.Stop()
	for {
		select {
		case <-l.stopped:
			return
		case <-timer.C:
		}
		sched := next
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			c.do(sched)
		}()
		next = next.Add(period)
		timer.Reset(time.Until(next))
	}
}

// stop ends the schedules and waits for the requests in flight (each
// bounded by the request timeout).
func (l *load) stop() error {
	close(l.stopped)
	l.done.Wait()
	ch := make(chan struct{})
	go func() { l.wg.Wait(); close(ch) }()
	select {
	case <-ch:
		return nil
	case <-time.After(requestTimeout + 5*time.Second):
		return fmt.Errorf("requests still in flight %v after the load stopped", requestTimeout+5*time.Second)
	}
}

// signInAll signs in the clients that sign in, 4 at a time (argon2id is
// expensive), and gives the others a CSRF token.
func signInAll(ctx context.Context, clients []*client) error {
	sem := make(chan struct{}, 4)
	errs := make(chan error, len(clients))
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			var err error
			if c.signed {
				err = c.signIn(ctx)
			} else {
				rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				err = c.fetchToken(rctx)
				cancel()
			}
			if err != nil {
				errs <- fmt.Errorf("client %d: %w", c.id, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs // the first error, nil when none
}
