package plinth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
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
	a.addCheck("ReadinessCheck", name, timeout, check, false)
}

// DegradedCheck registers a check for a dependency the App serves without,
// worse (a cache it computes around, a mail relay whose messages wait in the
// queue): it runs with the readiness checks, under the same timeout rule
// (0 means 2s) and cache, but a failure keeps readiness at 200 and is
// reported as degraded: "degraded" in the JSON body (Config.ReadinessJSON,
// or a probe that accepts application/json), a "degraded:" line after
// "ready" in the text one, a log line never. Ready returns nil while only
// degraded checks fail; Readiness tells them apart.
func (a *App) DegradedCheck(name string, timeout time.Duration, check func(ctx context.Context) error) {
	a.addCheck("DegradedCheck", name, timeout, check, true)
}

func (a *App) addCheck(method, name string, timeout time.Duration, check func(ctx context.Context) error, degraded bool) {
	a.mustBeOpen()
	if check == nil || name == "" {
		panic("plinth: " + method + " needs a name and a function")
	}
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	a.health.checks = append(a.health.checks, readinessCheck{name, timeout, check, degraded})
}

type readinessCheck struct {
	name     string
	timeout  time.Duration
	run      func(ctx context.Context) error
	degraded bool // a failure degrades, never fails, readiness
}

// CheckStatus is one readiness check's state, as Readiness reports it and
// the JSON readiness body names it.
type CheckStatus string

// The states of a readiness check.
const (
	CheckOK       CheckStatus = "ok"       // the check passed
	CheckDegraded CheckStatus = "degraded" // a DegradedCheck failed: readiness stays 200
	CheckDown     CheckStatus = "down"     // a ReadinessCheck failed: readiness answers 503
)

// CheckResult is the outcome of one readiness check.
type CheckResult struct {
	Name   string
	Status CheckStatus
	Err    error // nil when Status is CheckOK
}

// health answers the liveness and readiness probes.
type health struct {
	checks   []readinessCheck
	draining atomic.Bool

	mu      sync.Mutex
	running chan struct{} // closed when the run in progress ends
	at      time.Time     // when the cached result was made
	results []CheckResult // the cached result, sorted by name
}

// ready runs the checks, or returns the cached result when it is younger
// than ttl; concurrent callers wait for the same run. The slice returned is
// shared: callers only read it.
func (h *health) ready(ctx context.Context, ttl time.Duration) ([]CheckResult, error) {
	if len(h.checks) == 0 {
		return nil, nil
	}
	h.mu.Lock()
	if !h.at.IsZero() && time.Since(h.at) < ttl {
		results := h.results
		h.mu.Unlock()
		return results, nil
	}
	if wait := h.running; wait != nil {
		h.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, errors.New("probe cancelled")
		}
		h.mu.Lock()
		results := h.results
		h.mu.Unlock()
		return results, nil
	}
	done := make(chan struct{})
	h.running = done
	h.mu.Unlock()

	results := h.runChecks()

	h.mu.Lock()
	h.results, h.at, h.running = results, time.Now(), nil
	h.mu.Unlock()
	close(done)
	return results, nil
}

// runChecks runs every check in parallel, each under its own timeout. The
// checks run detached from the probe's context so that a client hanging up
// cannot poison the shared result.
func (h *health) runChecks() []CheckResult {
	results := make([]CheckResult, len(h.checks))
	var wg sync.WaitGroup
	for i, c := range h.checks {
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
			r := CheckResult{Name: c.name, Status: CheckOK, Err: err}
			if err != nil {
				r.Status = CheckDown
				if c.degraded {
					r.Status = CheckDegraded
				}
			}
			results[i] = r
		}()
	}
	wg.Wait()
	sort.SliceStable(results, func(i, j int) bool { return results[i].Name < results[j].Name })
	return results
}

// failing returns "name: error" for each result in the given state.
func failing(results []CheckResult, status CheckStatus) []string {
	var out []string
	for _, r := range results {
		if r.Status == status {
			out = append(out, r.Name+": "+r.Err.Error())
		}
	}
	return out
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
// check fails, 200 otherwise. The body is text, or JSON (jsonBody, or an
// Accept naming application/json) naming each check.
func (h *health) serveReady(w http.ResponseWriter, r *http.Request, ttl time.Duration, jsonBody bool) {
	w.Header()["Cache-Control"] = noStore
	if h.draining.Load() {
		writeProbeFailure(w, "draining: the server is shutting down")
		return
	}
	results, err := h.ready(r.Context(), ttl)
	if err != nil {
		writeProbeFailure(w, "not ready: "+err.Error())
		return
	}
	down := failing(results, CheckDown)
	if jsonBody || acceptsJSON(r) {
		status := http.StatusOK
		if len(down) > 0 {
			status = http.StatusServiceUnavailable
			w.Header()["Retry-After"] = []string{"1"}
		}
		w.Header()["Content-Type"] = jsonContentType
		w.WriteHeader(status)
		_, _ = w.Write(appendChecksJSON(nil, results))
		return
	}
	if len(down) > 0 {
		writeProbeFailure(w, "not ready: "+strings.Join(down, "; "))
		return
	}
	w.Header()["Content-Type"] = textContentType
	w.WriteHeader(http.StatusOK)
	body := "ready\n"
	if degraded := failing(results, CheckDegraded); len(degraded) > 0 {
		body += "degraded: " + strings.Join(degraded, "; ") + "\n"
	}
	_, _ = w.Write([]byte(body))
}

// acceptsJSON reports whether r's Accept names application/json.
func acceptsJSON(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(v, "application/json") {
			return true
		}
	}
	return false
}

// appendChecksJSON appends {"name":"status",...}, in name order.
func appendChecksJSON(b []byte, results []CheckResult) []byte {
	b = append(b, '{')
	for i, r := range results {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, r.Name)
		b = append(b, ':', '"')
		b = append(b, r.Status...)
		b = append(b, '"')
	}
	return append(b, '}', '\n')
}

func writeProbeFailure(w http.ResponseWriter, detail string) {
	p := &Problem{Status: http.StatusServiceUnavailable, Detail: detail}
	w.Header()["Content-Type"] = problemContentType
	w.Header()["Retry-After"] = []string{"1"}
	w.WriteHeader(p.StatusCode())
	_, _ = w.Write(p.appendJSON(nil, ""))
}

// Ready reports what readiness reports: nil when the App is ready, else an
// error naming the failing checks, or saying that the App is draining. A
// failing DegradedCheck does not make it fail. It runs the readiness checks
// like the probe does, sharing its cached result (Config.ReadinessCacheTTL,
// default 1s), so that a metrics scrape or a status page adds no load on the
// dependencies.
func (a *App) Ready(ctx context.Context) error {
	if a.health.draining.Load() {
		return errors.New("plinth: draining")
	}
	results, err := a.Readiness(ctx)
	if err != nil {
		return errors.New("plinth: not ready: " + err.Error())
	}
	if down := failing(results, CheckDown); len(down) > 0 {
		return errors.New("plinth: not ready: " + strings.Join(down, "; "))
	}
	return nil
}

// Readiness returns every readiness check's result (ReadinessCheck and
// DegradedCheck), sorted by name, from the same cached run as the probe and
// Ready. The error is the context's, when ctx ends while another caller's
// run is still going.
func (a *App) Readiness(ctx context.Context) ([]CheckResult, error) {
	ttl := a.Config.ReadinessCacheTTL
	if ttl <= 0 {
		ttl = DefaultReadinessCacheTTL
	}
	results, err := a.health.ready(ctx, ttl)
	return slices.Clone(results), err
}
