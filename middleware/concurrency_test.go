package middleware

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
)

// nopWriter allocates nothing, so AllocsPerRun counts the middleware only.
type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header               { return w.h }
func (w *nopWriter) Write(b []byte) (int, error)       { return len(b), nil }
func (w *nopWriter) WriteString(s string) (int, error) { return len(s), nil }
func (w *nopWriter) WriteHeader(int)                   {}

func serve(app http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	app.ServeHTTP(w, r)
	return w
}

// checkProblem checks a problem JSON response's status and headers.
func checkProblem(t *testing.T, w *httptest.ResponseRecorder, status int, retryAfter string) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d, want %d (body %q)", w.Code, status, w.Body)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q, want application/problem+json", ct)
	}
	var p struct{ Status int }
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p.Status != status {
		t.Errorf("body %q: status %d, err %v", w.Body, p.Status, err)
	}
	if retryAfter != "" {
		if got := w.Header().Get("Retry-After"); got != retryAfter {
			t.Errorf("Retry-After %q, want %q", got, retryAfter)
		}
	}
}

// holdApp serves GET / with a handler that reports its start on started and
// blocks until release is closed, counting the handlers running at once.
type holdApp struct {
	app     *plinth.App
	started chan struct{}
	release chan struct{}
	running atomic.Int64
	peak    atomic.Int64
}

func newHoldApp(mw plinth.Middleware) *holdApp {
	h := &holdApp{started: make(chan struct{}, 100), release: make(chan struct{})}
	h.app = plinth.Bare()
	h.app.Logger = discardLogger()
	h.app.Use(mw)
	h.app.Get("/", func(c *plinth.Ctx) error {
		n := h.running.Add(1)
		defer h.running.Add(-1)
		for {
			p := h.peak.Load()
			if n <= p || h.peak.CompareAndSwap(p, n) {
				break
			}
		}
		h.started <- struct{}{}
		<-h.release
		return c.Text(200, "ok")
	})
	return h
}

// start serves a request in a goroutine; the recorder arrives on the
// returned channel.
func (h *holdApp) start(ctx context.Context) <-chan *httptest.ResponseRecorder {
	out := make(chan *httptest.ResponseRecorder, 1)
	req := httptest.NewRequestWithContext(ctx, "GET", "/", nil)
	go func() { out <- serve(h.app, req) }()
	return out
}

func TestConcurrencyLimiterExactlyN(t *testing.T) {
	const n = 4
	lim := NewConcurrencyLimiter(ConcurrencyLimiterConfig{Max: n, MaxWait: -1})
	h := newHoldApp(lim.Middleware())
	var outs []<-chan *httptest.ResponseRecorder
	for range n {
		outs = append(outs, h.start(context.Background()))
		<-h.started
	}
	if got := lim.InFlight(); got != n {
		t.Fatalf("InFlight %d, want %d", got, n)
	}
	// The next one finds no slot and, with MaxWait < 0, is refused at once.
	w := serve(h.app, httptest.NewRequest("GET", "/", nil))
	checkProblem(t, w, http.StatusServiceUnavailable, "1")
	if lim.Shed() != 1 {
		t.Errorf("Shed %d, want 1", lim.Shed())
	}
	close(h.release)
	for _, o := range outs {
		if w := <-o; w.Code != 200 {
			t.Errorf("held request: status %d", w.Code)
		}
	}
	if h.peak.Load() != n {
		t.Errorf("peak concurrency %d, want %d", h.peak.Load(), n)
	}
	if lim.InFlight() != 0 || lim.Waiting() != 0 {
		t.Errorf("after: InFlight %d Waiting %d, want 0 0", lim.InFlight(), lim.Waiting())
	}
}

func TestConcurrencyLimiterWaitsThenSheds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lim := NewConcurrencyLimiter(ConcurrencyLimiterConfig{Max: 1, RetryAfter: 1500 * time.Millisecond})
		h := newHoldApp(lim.Middleware())
		held := h.start(context.Background())
		<-h.started
		t0 := time.Now()
		waiter := h.start(context.Background())
		synctest.Wait()
		if lim.Waiting() != 1 {
			t.Fatalf("Waiting %d, want 1", lim.Waiting())
		}
		w := <-waiter // the fake clock jumps to the timer
		if d := time.Since(t0); d != DefaultConcurrencyLimiterMaxWait {
			t.Errorf("refused after %v, want the default wait %v", d, DefaultConcurrencyLimiterMaxWait)
		}
		checkProblem(t, w, http.StatusServiceUnavailable, "2")
		if lim.Shed() != 1 || lim.Waiting() != 0 {
			t.Errorf("Shed %d Waiting %d, want 1 0", lim.Shed(), lim.Waiting())
		}
		close(h.release)
		<-held
	})
}

func TestConcurrencyLimiterWaiterGetsFreedSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lim := NewConcurrencyLimiter(ConcurrencyLimiterConfig{Max: 1, MaxWait: time.Hour})
		h := newHoldApp(lim.Middleware())
		first := h.start(context.Background())
		<-h.started
		second := h.start(context.Background())
		synctest.Wait()
		if lim.Waiting() != 1 || lim.InFlight() != 1 {
			t.Fatalf("Waiting %d InFlight %d, want 1 1", lim.Waiting(), lim.InFlight())
		}
		h.release <- struct{}{} // the first handler returns
		if w := <-first; w.Code != 200 {
			t.Fatalf("first: %d", w.Code)
		}
		<-h.started // the waiter took the slot
		if lim.Waiting() != 0 || lim.InFlight() != 1 {
			t.Errorf("Waiting %d InFlight %d, want 0 1", lim.Waiting(), lim.InFlight())
		}
		close(h.release)
		if w := <-second; w.Code != 200 {
			t.Errorf("second: %d", w.Code)
		}
		if lim.Shed() != 0 || lim.InFlight() != 0 {
			t.Errorf("Shed %d InFlight %d, want 0 0", lim.Shed(), lim.InFlight())
		}
	})
}

func TestConcurrencyLimiterCancelledWaiterLeaves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lim := NewConcurrencyLimiter(ConcurrencyLimiterConfig{Max: 1, MaxWait: time.Hour})
		h := newHoldApp(lim.Middleware())
		held := h.start(context.Background())
		<-h.started
		ctx, cancel := context.WithCancel(context.Background())
		waiter := h.start(ctx)
		synctest.Wait()
		if lim.Waiting() != 1 {
			t.Fatalf("Waiting %d, want 1", lim.Waiting())
		}
		cancel()
		w := <-waiter
		checkProblem(t, w, http.StatusServiceUnavailable, "1")
		if lim.Waiting() != 0 || lim.InFlight() != 1 || lim.Shed() != 0 {
			t.Errorf("Waiting %d InFlight %d Shed %d, want 0 1 0", lim.Waiting(), lim.InFlight(), lim.Shed())
		}
		close(h.release)
		<-held
		if lim.InFlight() != 0 {
			t.Errorf("InFlight %d after all returned", lim.InFlight())
		}
	})
}

func TestConcurrencyLimiterQueueBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lim := NewConcurrencyLimiter(ConcurrencyLimiterConfig{Max: 1, MaxWaiters: 2, MaxWait: time.Hour})
		h := newHoldApp(lim.Middleware())
		held := h.start(context.Background())
		<-h.started
		w1, w2 := h.start(context.Background()), h.start(context.Background())
		synctest.Wait()
		// The queue is full: refused at once, with no wait.
		t0 := time.Now()
		w := serve(h.app, httptest.NewRequest("GET", "/", nil))
		if time.Since(t0) != 0 {
			t.Errorf("a request meeting a full queue waited %v", time.Since(t0))
		}
		checkProblem(t, w, http.StatusServiceUnavailable, "1")
		if lim.Waiting() != 2 || lim.Shed() != 1 {
			t.Errorf("Waiting %d Shed %d, want 2 1", lim.Waiting(), lim.Shed())
		}
		close(h.release)
		for _, o := range []<-chan *httptest.ResponseRecorder{held, w1, w2} {
			if w := <-o; w.Code != 200 {
				t.Errorf("status %d", w.Code)
			}
		}
	})
}

func TestConcurrencyLimiterNoQueue(t *testing.T) {
	lim := NewConcurrencyLimiter(ConcurrencyLimiterConfig{Max: 1, MaxWaiters: -1})
	h := newHoldApp(lim.Middleware())
	held := h.start(context.Background())
	<-h.started
	checkProblem(t, serve(h.app, httptest.NewRequest("GET", "/", nil)), http.StatusServiceUnavailable, "1")
	close(h.release)
	<-held
}

func TestConcurrencyLimiterPanicReleasesSlot(t *testing.T) {
	lim := NewConcurrencyLimiter(ConcurrencyLimiterConfig{Max: 2, MaxWait: -1})
	bare := plinth.Bare()
	bare.Logger = discardLogger()
	bare.Use(lim.Middleware())
	bare.Get("/", func(c *plinth.Ctx) error { panic("boom") })
	for range 5 {
		func() {
			defer func() {
				if v := recover(); v != "boom" {
					t.Errorf("recovered %v, want the handler's panic passed through", v)
				}
			}()
			serve(bare, httptest.NewRequest("GET", "/", nil))
		}()
	}
	if lim.InFlight() != 0 {
		t.Fatalf("InFlight %d after panics, want 0", lim.InFlight())
	}

	// With plinth.New's recovery outside it: a 500, and no slot leaked.
	app := plinth.New()
	app.Logger = discardLogger()
	app.Use(lim.Middleware())
	app.Get("/", func(c *plinth.Ctx) error { panic("boom") })
	for range 5 {
		if w := serve(app, httptest.NewRequest("GET", "/", nil)); w.Code != 500 {
			t.Fatalf("status %d, want 500", w.Code)
		}
	}
	if lim.InFlight() != 0 || lim.Shed() != 0 {
		t.Fatalf("InFlight %d Shed %d, want 0 0", lim.InFlight(), lim.Shed())
	}
}

func TestConcurrencyLimiterStress(t *testing.T) {
	const max, workers, each = 3, 32, 30
	lim := NewConcurrencyLimiter(ConcurrencyLimiterConfig{Max: max, MaxWait: time.Millisecond})
	var running, peak atomic.Int64
	app := plinth.Bare()
	app.Logger = discardLogger()
	app.Use(lim.Middleware())
	app.Get("/", func(c *plinth.Ctx) error {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		if n > max {
			t.Errorf("%d handlers running, limit %d", n, max)
		}
		time.Sleep(20 * time.Microsecond) // hold the slot a little, to make waiters
		return c.Text(200, "ok")
	})
	var ok, refused atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range each {
				ctx := context.Background()
				if i%7 == 0 { // some clients give up at once
					c, cancel := context.WithCancel(ctx)
					cancel()
					ctx = c
				}
				w := serve(app, httptest.NewRequestWithContext(ctx, "GET", "/", nil))
				switch w.Code {
				case 200:
					ok.Add(1)
				case 503:
					refused.Add(1)
				default:
					t.Errorf("status %d", w.Code)
				}
			}
		})
	}
	wg.Wait()
	if ok.Load()+refused.Load() != workers*each {
		t.Errorf("%d ok + %d refused, want %d", ok.Load(), refused.Load(), workers*each)
	}
	if lim.InFlight() != 0 || lim.Waiting() != 0 {
		t.Errorf("after: InFlight %d Waiting %d, want 0 0", lim.InFlight(), lim.Waiting())
	}
	if lim.Shed() > uint64(refused.Load()) {
		t.Errorf("Shed %d > refused %d", lim.Shed(), refused.Load())
	}
	t.Logf("ok %d, refused %d (shed %d), peak %d", ok.Load(), refused.Load(), lim.Shed(), peak.Load())
}

func TestConcurrencyLimiterAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	lim := NewConcurrencyLimiter(ConcurrencyLimiterConfig{Max: 4})
	app := plinth.Bare()
	app.Use(lim.Middleware())
	app.Get("/", func(c *plinth.Ctx) error { return c.Text(200, "ok") })
	req := httptest.NewRequest("GET", "/", nil)
	w := &nopWriter{h: http.Header{}}
	app.ServeHTTP(w, req)
	if n := testing.AllocsPerRun(200, func() { app.ServeHTTP(w, req) }); n != 0 {
		t.Errorf("%v allocations per request with a free slot, want 0", n)
	}
}

func TestConcurrencyLimiterBadConfig(t *testing.T) {
	if err := (ConcurrencyLimiterConfig{Max: 1}).Validate(); err != nil {
		t.Errorf("Max 1: %v", err)
	}
	err := ConcurrencyLimiterConfig{}.Validate()
	if err == nil || !strings.Contains(err.Error(), "ConcurrencyLimiterConfig.Max") {
		t.Fatalf("Max 0: Validate() = %v, want an error naming the field", err)
	}
	defer func() {
		if p := recover(); p == nil {
			t.Error("Max 0 did not panic")
		} else if p != err.Error() {
			t.Errorf("panicked with %v, want %q", p, err.Error())
		}
	}()
	NewConcurrencyLimiter(ConcurrencyLimiterConfig{})
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
