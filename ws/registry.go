package ws

import (
	"context"
	"fmt"
	"sync"

	"github.com/plinth-go/plinth"
)

// registry holds the open connections of one App. While it holds any, one
// goroutine per App waits for the drain and sends every connection close
// 1001; connections do not each wait, and an App without connections has no
// goroutine waiting.
type registry struct {
	mu       sync.Mutex
	conns    map[*Conn]struct{}
	reserved int // reserve calls not yet matched by add or unreserve
	draining bool
	drain    <-chan struct{} // the App's Draining (nil outside an App)
	idle     chan struct{}   // closed when the last connection goes: the watcher returns

	detached sync.WaitGroup // goroutines of detached connections (Conn.Detach)
}

var (
	registriesMu sync.Mutex
	registries   = map[*plinth.App]*registry{}
)

func registryOf(app *plinth.App) *registry {
	registriesMu.Lock()
	defer registriesMu.Unlock()
	if r, ok := registries[app]; ok {
		return r
	}
	r := &registry{conns: map[*Conn]struct{}{}}
	registries[app] = r
	if app != nil {
		r.drain = app.Draining()
	}
	return r
}

func (r *registry) watch(drain <-chan struct{}, idle <-chan struct{}) {
	select {
	case <-drain:
	case <-idle:
		return
	}
	r.mu.Lock()
	r.draining = true
	conns := make([]*Conn, 0, len(r.conns))
	for c := range r.conns {
		conns = append(conns, c)
	}
	r.mu.Unlock()
	for _, c := range conns {
		go c.goAway()
	}
}

// reserve takes a place for a connection about to be upgraded; false when
// the App drains or max (negative: no cap) connections are open.
func (r *registry) reserve(max int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-r.drain:
		r.draining = true
	default:
	}
	if r.draining || (max > 0 && len(r.conns)+r.reserved >= max) {
		return false
	}
	r.reserved++
	return true
}

func (r *registry) unreserve() {
	r.mu.Lock()
	r.reserved--
	r.mu.Unlock()
}

// add turns a reservation into a registered connection; false when the
// drain started meanwhile (the caller closes it with 1001).
func (r *registry) add(c *Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reserved--
	if r.draining {
		return false
	}
	r.conns[c] = struct{}{}
	if len(r.conns) == 1 && r.drain != nil {
		r.idle = make(chan struct{})
		go r.watch(r.drain, r.idle)
	}
	return true
}

func (r *registry) remove(c *Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.conns[c]; !ok {
		return
	}
	delete(r.conns, c)
	if len(r.conns) == 0 && r.idle != nil {
		close(r.idle)
		r.idle = nil
	}
}

func (r *registry) isDraining() bool {
	select {
	case <-r.drain:
		return true
	default:
		return false
	}
}

// Attach installs ws on app: after the drain, Serve and Run wait (within
// what is left of the grace period) for the goroutines of detached
// connections (Conn.Detach) to return, as they wait for handlers in
// flight. Connections kept by their handler need no Attach. Call it before
// the App serves.
func Attach(app *plinth.App) {
	reg := registryOf(app)
	app.OnStop(func(ctx context.Context) error {
		done := make(chan struct{})
		go func() {
			reg.detached.Wait()
			close(done)
		}()
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("ws: detached WebSocket connections still open at the end of the grace period: %w", ctx.Err())
		}
	})
}
