package plinth_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
)

func timeoutApp(d time.Duration) *plinth.App {
	app := plinth.New()
	app.Logger = slog.New(slog.DiscardHandler)
	app.HandlerTimeout = d
	return app
}

func TestTimeoutBeforeWriting(t *testing.T) {
	app := timeoutApp(50 * time.Millisecond)
	seen := make(chan error, 1)
	app.Get("/slow", func(c *plinth.Ctx) error {
		<-c.Context().Done()
		seen <- c.Context().Err()
		return c.Text(200, "too late") // fails: the deadline passed
	})
	rec := serve(app, "GET", "/slow")
	if rec.Code != 503 || rec.Header().Get("Content-Type") != "application/problem+json" || rec.Header().Get("Connection") != "close" {
		t.Fatalf("%d %v %q", rec.Code, rec.Header(), rec.Body)
	}
	if strings.Contains(rec.Body.String(), "too late") {
		t.Errorf("a write after the deadline reached the client: %q", rec.Body)
	}
	if err := <-seen; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the handler's context ended with %v, want DeadlineExceeded", err)
	}
}

func TestTimeoutAfterWritingAborts(t *testing.T) {
	app := timeoutApp(50 * time.Millisecond)
	app.Get("/partial", func(c *plinth.Ctx) error {
		_ = c.Text(200, "partial")
		<-c.Context().Done()
		return nil
	})
	defer func() {
		if p := recover(); p != http.ErrAbortHandler {
			t.Fatalf("panic %v, want http.ErrAbortHandler (net/http closes the connection)", p)
		}
	}()
	app.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/partial", nil))
}

// A handler that keeps writing after the deadline, from its own goroutine:
// its writes fail, nothing races (run with -race), and the response started
// before the deadline is aborted.
func TestTimeoutStressWritesAfterDeadline(t *testing.T) {
	for _, eng := range []string{plinth.EngineStd, plinth.EngineFast} {
		t.Run(eng, func(t *testing.T) { stressWritesAfterDeadline(t, eng) })
	}
}

func stressWritesAfterDeadline(t *testing.T, eng string) {
	app := timeoutApp(20 * time.Millisecond)
	app.Config.Engine = eng
	app.Get("/stream", func(c *plinth.Ctx) error {
		w := c.Writer()
		var failed error
		for failed == nil {
			_, failed = w.Write([]byte("chunk\n"))
			w.(http.Flusher).Flush()
			c.Header().Set("X-Late", "1")
		}
		if !errors.Is(failed, http.ErrHandlerTimeout) {
			t.Errorf("write after the deadline: %v, want http.ErrHandlerTimeout", failed)
		}
		return failed
	})
	base := serveApp(t, app, "http")
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			res, err := http.Get(base + "/stream")
			if err == nil {
				_, err = io.ReadAll(res.Body)
				res.Body.Close()
			}
			if err == nil {
				t.Error("an aborted stream read as complete")
			}
		})
	}
	wg.Wait()
}

func TestTimeoutStreamingAndFastHandlers(t *testing.T) {
	app := timeoutApp(time.Second)
	var kept context.Context
	app.Get("/fast", func(c *plinth.Ctx) error {
		kept = c.Context()
		if d, ok := kept.Deadline(); !ok || time.Until(d) > time.Second {
			return plinth.Errorf(500, "deadline %v %v", d, ok)
		}
		_, _ = c.Writer().Write([]byte("a"))
		c.Writer().(http.Flusher).Flush()
		_, err := c.Writer().Write([]byte("b"))
		return err
	})
	rec := serve(app, "GET", "/fast")
	if rec.Code != 200 || rec.Body.String() != "ab" || !rec.Flushed {
		t.Fatalf("%d %q flushed=%v", rec.Code, rec.Body, rec.Flushed)
	}
	select {
	case <-kept.Done():
		if !errors.Is(kept.Err(), context.Canceled) {
			t.Errorf("context kept past the handler: %v, want Canceled", kept.Err())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the handler's context was not cancelled when it returned")
	}
}

func TestTimeoutForwardsParentCancellation(t *testing.T) {
	app := timeoutApp(time.Minute)
	got := make(chan error, 1)
	app.Get("/wait", func(c *plinth.Ctx) error {
		<-c.Context().Done()
		got <- c.Context().Err()
		return nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequest("GET", "/wait", nil).WithContext(ctx)
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	app.ServeHTTP(httptest.NewRecorder(), req)
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Errorf("client gone: handler saw %v, want Canceled", err)
	}
}

func TestTimeoutOffAndSkipped(t *testing.T) {
	check := func(name string, app *plinth.App) {
		t.Helper()
		app.Get("/", func(c *plinth.Ctx) error {
			if _, ok := c.Context().Deadline(); ok {
				return plinth.Error(500, "deadline set")
			}
			return c.NoContent(204)
		})
		if rec := serve(app, "GET", "/"); rec.Code != 204 {
			t.Errorf("%s: %d %q", name, rec.Code, rec.Body)
		}
	}
	check("HandlerTimeout < 0", timeoutApp(-1))

	// A group switches it off for long-lived responses, or sets its own;
	// other routes keep the App's.
	app := timeoutApp(time.Minute)
	deadline := func(c *plinth.Ctx) error {
		d, ok := c.Context().Deadline()
		if !ok {
			return c.Text(200, "none")
		}
		return c.Text(200, time.Until(d).Round(time.Minute).String())
	}
	ws := app.Group("/ws")
	ws.SetHandlerTimeout(plinth.Off)
	ws.Get("/live", deadline)
	slow := app.Group("/reports")
	slow.SetHandlerTimeout(10 * time.Minute)
	slow.Get("/big", deadline)
	app.Get("/api", deadline)
	for path, want := range map[string]string{"/ws/live": "none", "/reports/big": "10m0s", "/api": "1m0s"} {
		if rec := serve(app, "GET", path); rec.Body.String() != want {
			t.Errorf("%s: deadline %q, want %q", path, rec.Body, want)
		}
	}
	t.Setenv("PLINTH_HANDLER_TIMEOUT", "0")
	check("PLINTH_HANDLER_TIMEOUT=0", timeoutApp(time.Minute))
	t.Setenv("PLINTH_HANDLER_TIMEOUT", "soon")
	func() {
		defer func() {
			if r, _ := recover().(string); !strings.Contains(r, "PLINTH_HANDLER_TIMEOUT") {
				t.Errorf("a bad PLINTH_HANDLER_TIMEOUT: panic %q, want one naming the variable", r)
			}
		}()
		timeoutApp(0).Build()
	}()
	t.Setenv("PLINTH_HANDLER_TIMEOUT", "")
	t.Setenv("PLINTH_SKIP_MIDDLEWARE", "timeout")
	check("PLINTH_SKIP_MIDDLEWARE=timeout", timeoutApp(0))
}

type ctxTestKey struct{}

// The deadline reaches the handler however it looks at its context: through
// Ctx.Context, through Ctx.Request (made on demand), in a plain handler, and
// below standard middleware that adds a value; and it is cancelled at the
// deadline on every one of them.
func TestTimeoutDeadlineEverywhere(t *testing.T) {
	app := timeoutApp(time.Hour)
	check := func(t *testing.T, where string, ctx context.Context) {
		t.Helper()
		dl, ok := ctx.Deadline()
		if !ok || time.Until(dl) < 59*time.Minute {
			t.Errorf("%s: deadline %v %v, want about an hour", where, dl, ok)
		}
	}
	app.Get("/native", func(c *plinth.Ctx) error {
		check(t, "Ctx.Context", c.Context())
		check(t, "Ctx.Request().Context()", c.Request().Context())
		check(t, "Ctx.Context after Request", c.Context())
		if plinth.CtxOf(c.Request()) != nil {
			t.Error("the request carries the Ctx without a plain handler asking for it")
		}
		return c.NoContent(204)
	})
	app.HandleFunc("GET /plain", func(w http.ResponseWriter, r *http.Request) {
		check(t, "plain handler", r.Context())
		if plinth.CtxOf(r) == nil {
			t.Error("plain handler: CtxOf(r) is nil")
		}
		w.WriteHeader(204)
	})
	mw := app.Group("/mw")
	mw.UseHTTP(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxTestKey{}, "v")))
		})
	})
	mw.Get("/native", func(c *plinth.Ctx) error {
		check(t, "below std middleware", c.Context())
		if c.Context().Value(ctxTestKey{}) != "v" || c.Request().Context().Value(ctxTestKey{}) != "v" {
			t.Error("the middleware's context value is lost")
		}
		return c.NoContent(204)
	})
	for _, p := range []string{"/native", "/plain", "/mw/native"} {
		if rec := serve(app, "GET", p); rec.Code != 204 {
			t.Errorf("%s: %d %q", p, rec.Code, rec.Body)
		}
	}

	short := timeoutApp(20 * time.Millisecond)
	done := make(chan [2]error, 1)
	short.Get("/wait", func(c *plinth.Ctx) error {
		before := c.Context()
		r := c.Request()
		<-r.Context().Done()
		done <- [2]error{before.Err(), r.Context().Err()}
		return nil
	})
	if rec := serve(short, "GET", "/wait"); rec.Code != 503 {
		t.Errorf("/wait: %d, want 503", rec.Code)
	}
	if errs := <-done; !errors.Is(errs[0], context.DeadlineExceeded) || !errors.Is(errs[1], context.DeadlineExceeded) {
		t.Errorf("contexts ended with %v, want DeadlineExceeded on both", errs)
	}
}

// TimedOut is false while the deadline has not passed and true once it has.
func TestTimedOut(t *testing.T) {
	app := timeoutApp(20 * time.Millisecond)
	seen := make(chan [2]bool, 1)
	app.Get("/wait", func(c *plinth.Ctx) error {
		before := c.TimedOut()
		<-c.Context().Done() // the timer sets TimedOut before it cancels the context
		seen <- [2]bool{before, c.TimedOut()}
		return nil
	})
	if rec := serve(app, "GET", "/wait"); rec.Code != 503 {
		t.Errorf("%d, want 503", rec.Code)
	}
	if got := <-seen; got != [2]bool{false, true} {
		t.Errorf("TimedOut before and after the deadline: %v, want [false true]", got)
	}
}

// Contexts a handler derives from the request's context under the timeout
// (context.WithTimeout, WithCancel, AfterFunc) cost no goroutine: the
// deadline context implements AfterFunc, which the context package uses
// instead of a goroutine per derived context waiting on Done.
func TestTimeoutDerivedContextsStartNoGoroutine(t *testing.T) {
	app := timeoutApp(time.Minute)
	const n = 100
	added := make(chan int, 1)
	app.Get("/derive", func(c *plinth.Ctx) error {
		before := runtime.NumGoroutine()
		cancels := make([]context.CancelFunc, 0, 3*n)
		for range n {
			ctx, cancel := context.WithTimeout(c.Context(), time.Hour)
			cancels = append(cancels, cancel)
			_, cancel = context.WithCancel(ctx) // a child of a standard context: free anyway
			cancels = append(cancels, cancel)
			_, cancel = context.WithCancel(c.Request().Context())
			cancels = append(cancels, cancel)
		}
		added <- runtime.NumGoroutine() - before
		for _, cancel := range cancels {
			cancel()
		}
		return c.NoContent(204)
	})
	ctx, cancel := context.WithCancel(context.Background()) // as net/http's request context
	defer cancel()
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest("GET", "/derive", nil).WithContext(ctx))
	if rec.Code != 204 {
		t.Fatalf("status %d", rec.Code)
	}
	// Before AfterFunc this was 2n (one goroutine per context derived from
	// the deadline context); a few unrelated goroutines may come and go.
	if got := <-added; got >= n/2 {
		t.Errorf("deriving %d contexts started %d goroutines, want none", 2*n, got)
	}
}

// The timeout still reaches contexts derived from the request's context:
// they end with DeadlineExceeded as their error and cause, and ones derived
// after the deadline end at once; contexts derived in a request that ends in
// time end with Canceled when the handler returns, and the parent's
// cancellation (the client leaving) reaches them too.
func TestTimeoutCancelReachesDerivedContexts(t *testing.T) {
	app := timeoutApp(30 * time.Millisecond)
	type result struct{ err, cause, late, after error }
	got := make(chan result, 1)
	var kept context.Context
	var cancelKept context.CancelFunc
	app.Get("/slow", func(c *plinth.Ctx) error {
		derived, cancel := context.WithTimeout(c.Context(), time.Hour)
		defer cancel()
		ran := make(chan struct{})
		stop := context.AfterFunc(c.Context(), func() { close(ran) })
		defer stop()
		<-derived.Done()
		late, cancelLate := context.WithCancel(c.Context())
		defer cancelLate()
		<-ran
		got <- result{derived.Err(), context.Cause(derived), late.Err(), nil}
		return nil
	})
	app.Get("/quick", func(c *plinth.Ctx) error {
		kept, cancelKept = context.WithCancel(c.Context()) // kept to see the end of the request reach it
		return c.NoContent(204)
	})
	app.Get("/client", func(c *plinth.Ctx) error {
		derived, cancel := context.WithCancel(c.Context())
		defer cancel()
		<-derived.Done()
		got <- result{after: derived.Err()}
		return nil
	})
	if rec := serve(app, "GET", "/slow"); rec.Code != 503 {
		t.Fatalf("status %d, want 503", rec.Code)
	}
	r := <-got
	if !errors.Is(r.err, context.DeadlineExceeded) || !errors.Is(r.cause, context.DeadlineExceeded) {
		t.Errorf("derived context ended with %v (cause %v), want DeadlineExceeded", r.err, r.cause)
	}
	if !errors.Is(r.late, context.DeadlineExceeded) {
		t.Errorf("context derived after the deadline: %v, want DeadlineExceeded", r.late)
	}
	if rec := serve(app, "GET", "/quick"); rec.Code != 204 {
		t.Fatalf("status %d", rec.Code)
	}
	defer cancelKept()
	select {
	case <-kept.Done():
		if !errors.Is(kept.Err(), context.Canceled) {
			t.Errorf("context derived in a finished request: %v, want Canceled", kept.Err())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a context derived in the request was not cancelled when the handler returned")
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	app.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/client", nil).WithContext(ctx))
	if r := <-got; !errors.Is(r.after, context.Canceled) {
		t.Errorf("client gone: derived context ended with %v, want Canceled", r.after)
	}
}

// TestTimeoutKeptContextIsNotReused: the timeout's context is reused by the
// next request only when nobody took it; one a handler took (Ctx.Context,
// Ctx.Request, a plain handler's r.Context(), an inner Timeout's parent)
// stays as it ended: cancelled, with its own deadline and values, while the
// Ctx serves requests that do not take theirs.
func TestTimeoutKeptContextIsNotReused(t *testing.T) {
	app := timeoutApp(time.Hour)
	var kept []context.Context
	app.Get("/keep", func(c *plinth.Ctx) error {
		kept = append(kept, c.Context())
		return c.NoContent(204)
	})
	app.Get("/keep-request", func(c *plinth.Ctx) error {
		kept = append(kept, c.Request().Context())
		return c.NoContent(204)
	})
	app.HandleFunc("GET /keep-plain", func(w http.ResponseWriter, r *http.Request) {
		kept = append(kept, r.Context())
		w.WriteHeader(204)
	})
	inner := app.Group("/inner")
	inner.Use(plinth.Timeout(30 * time.Minute))
	inner.Get("/keep", func(c *plinth.Ctx) error {
		kept = append(kept, c.Context())
		return c.NoContent(204)
	})
	app.Get("/ignore", func(c *plinth.Ctx) error { return c.NoContent(204) })
	inner.Get("/ignore", func(c *plinth.Ctx) error { return c.NoContent(204) })

	for _, p := range []string{"/keep", "/keep-request", "/keep-plain", "/inner/keep"} {
		if rec := serve(app, "GET", p); rec.Code != 204 {
			t.Fatalf("%s: %d", p, rec.Code)
		}
		if len(kept) == 0 {
			t.Fatalf("%s: the handler did not run", p)
		}
		ctx := kept[len(kept)-1]
		dl, _ := ctx.Deadline()
		for range 5 {
			serve(app, "GET", "/ignore")
			serve(app, "GET", "/inner/ignore")
		}
		if !errors.Is(ctx.Err(), context.Canceled) {
			t.Errorf("%s: the kept context's Err is %v after later requests, want Canceled", p, ctx.Err())
		}
		if dl2, ok := ctx.Deadline(); !ok || !dl2.Equal(dl) {
			t.Errorf("%s: the kept context's deadline moved from %v to %v (%v)", p, dl, dl2, ok)
		}
		select {
		case <-ctx.Done():
		default:
			t.Errorf("%s: the kept context is not done", p)
		}
		_ = ctx.Value(ctxTestKey{}) // reaches its parents without a nil one
	}
}
