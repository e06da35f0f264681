package plinth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ReadinessCheck registers a check that readiness runs (a database ping,
// say). Each run gets its own timeout (0 means 2s); a check that fails or
// times out makes readiness answer 503, naming it. Results are cached for
// Config.ReadinessCacheTTL, and concurrent probes share one run, so a probe
// storm reaches the dependency at most once per TTL.
func (a *App) ReadinessCheck(name string, timeout time.Duration, check func(ctx context.Context) error) {
	a.mustBeOpen()
	if check == nil || name == "" {
		panic("plinth: ReadinessCheck needs a name and a function")
	}
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	a.health.checks = append(a.health.checks, readinessCheck{name, timeout, check})
}

type readinessCheck struct {
	name    string
	timeout time.Duration
	run     func(ctx context.Context) error
}

// health answers the liveness and readiness probes.
type health struct {
	checks   []readinessCheck
	draining atomic.Bool

	mu      sync.Mutex
	running chan struct{} // closed when the run in progress ends
	at      time.Time     // when the cached result was made
	failed  []string      // the cached result: failing checks, sorted
}

// ready runs the checks, or returns the cached result when it is younger
// than ttl; concurrent callers wait for the same run.
func (h *health) ready(ctx context.Context, ttl time.Duration) []string {
	if len(h.checks) == 0 {
		return nil
	}
	h.mu.Lock()
	if !h.at.IsZero() && time.Since(h.at) < ttl {
		failed := h.failed
		h.mu.Unlock()
		return failed
	}
	if wait := h.running; wait != nil {
		h.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return []string{"probe cancelled"}
		}
		h.mu.Lock()
		failed := h.failed
		h.mu.Unlock()
		return failed
	}
	done := make(chan struct{})
	h.running = done
	h.mu.Unlock()

	failed := h.runChecks()

	h.mu.Lock()
	h.failed, h.at, h.running = failed, time.Now(), nil
	h.mu.Unlock()
	close(done)
	return failed
}

// runChecks runs every check in parallel, each under its own timeout. The
// checks run detached from the probe's context so that a client hanging up
// cannot poison the shared result.
func (h *health) runChecks() []string {
	var (
		mu     sync.Mutex
		failed []string
		wg     sync.WaitGroup
	)
	for _, c := range h.checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
			defer cancel()
			errc := make(chan error, 1)
			go func() { errc <- c.run(ctx) }()
			var err error
			select {
			case err = <-errc:
			case <-ctx.Done():
				err = fmt.Errorf("timed out after %s", c.timeout)
			}
			if err != nil {
				mu.Lock()
				failed = append(failed, c.name+": "+err.Error())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.Strings(failed)
	return failed
}

// serveLive answers the liveness probe: 200 while the process serves.
func (h *health) serveLive(w http.ResponseWriter) {
	w.Header()["Content-Type"] = textContentType
	w.Header()["Cache-Control"] = noStore
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte("ok\n"))
}

var noStore = []string{"no-store"}

// serveReady answers the readiness probe: 503 while draining or while a
// check fails, 200 otherwise.
func (h *health) serveReady(w http.ResponseWriter, r *http.Request, ttl time.Duration) {
	w.Header()["Cache-Control"] = noStore
	if h.draining.Load() {
		writeProbeFailure(w, "draining: the server is shutting down")
		return
	}
	if failed := h.ready(r.Context(), ttl); len(failed) > 0 {
		writeProbeFailure(w, "not ready: "+strings.Join(failed, "; "))
		return
	}
	w.Header()["Content-Type"] = textContentType
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte("ready\n"))
}

func writeProbeFailure(w http.ResponseWriter, detail string) {
	p := &Problem{Status: http.StatusServiceUnavailable, Detail: detail}
	w.Header()["Content-Type"] = problemContentType
	w.Header()["Retry-After"] = []string{"1"}
	w.WriteHeader(p.StatusCode())
	_, _ = w.Write(p.appendJSON(nil, ""))
}

// Ready reports what readiness reports: nil when the App is ready, else an
// error naming the failing checks, or saying that the App is draining. It
// runs the readiness checks like the probe does, sharing its cached result
// (Config.ReadinessCacheTTL, default 1s), so that a metrics scrape or a
// status page adds no load on the dependencies.
func (a *App) Ready(ctx context.Context) error {
	if a.health.draining.Load() {
		return errors.New("plinth: draining")
	}
	ttl := a.Config.ReadinessCacheTTL
	if ttl <= 0 {
		ttl = DefaultReadinessCacheTTL
	}
	if failed := a.health.ready(ctx, ttl); len(failed) > 0 {
		return errors.New("plinth: not ready: " + strings.Join(failed, "; "))
	}
	return nil
}
