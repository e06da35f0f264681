package web_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/web"
)

// outageStore is a store that fails every call until its outage ends (a
// Redis restart), counting the calls; writeThrough makes a failing Create
// still write (its answer lost on the way back).
type outageStore struct {
	web.Store
	until        atomic.Int64 // UnixNano: calls before it fail
	writeThrough bool
	calls        atomic.Int64
}

func newOutageStore() *outageStore {
	return &outageStore{Store: web.NewMemoryStore(web.MemoryStoreConfig{})}
}

func (s *outageStore) down(d time.Duration) { s.until.Store(time.Now().Add(d).UnixNano()) }

func (s *outageStore) failing() bool {
	s.calls.Add(1)
	return time.Now().UnixNano() < s.until.Load()
}

func (s *outageStore) Load(ctx context.Context, id string) ([]byte, error) {
	if s.failing() {
		return nil, errDown
	}
	return s.Store.Load(ctx, id)
}

func (s *outageStore) Create(ctx context.Context, id string, b []byte, exp time.Time) error {
	if s.failing() {
		if s.writeThrough {
			if err := s.Store.Create(ctx, id, b, exp); err != nil {
				return err
			}
		}
		return errDown
	}
	return s.Store.Create(ctx, id, b, exp)
}

func (s *outageStore) Update(ctx context.Context, id string, b []byte, exp time.Time) (bool, error) {
	if s.failing() {
		return false, errDown
	}
	return s.Store.Update(ctx, id, b, exp)
}

func (s *outageStore) Delete(ctx context.Context, id string) error {
	if s.failing() {
		return errDown
	}
	return s.Store.Delete(ctx, id)
}

// TestSessionStoreOutageCostsLatency: a store that is down for less than
// the store timeout (a Redis restart) delays the requests that meet it,
// and they succeed: the load, the update, the create and the delete of a
// sign-out are asked again until the store answers.
func TestSessionStoreOutageCostsLatency(t *testing.T) {
	store := newOutageStore()
	app, _ := sessionApp(t, web.SessionsConfig{Store: store, StoreTimeout: 5 * time.Second})
	cl := newClient(t, app)
	cl.get("/put?v=ada") // a Create
	for _, step := range []struct{ name, path, want string }{
		{"load", "/get", "ada"},
		{"update", "/put?v=bob", "ok"},
		{"load after the update", "/get", "bob"},
		{"delete", "/destroy", "destroyed"},
	} {
		store.down(150 * time.Millisecond)
		before := store.calls.Load()
		start := time.Now()
		w := cl.do("GET", step.path, "")
		took := time.Since(start)
		if w.Code != 200 || w.Body.String() != step.want {
			t.Fatalf("%s during a 150 ms outage: %d %q, want 200 %q", step.name, w.Code, w.Body, step.want)
		}
		if took < 150*time.Millisecond {
			t.Errorf("%s answered in %v, before the outage ended: no call failed?", step.name, took)
		}
		if n := store.calls.Load() - before; n < 2 || n > 20 {
			t.Errorf("%s: %d store calls for a 150 ms outage, want a few retries (2 to 20)", step.name, n)
		}
	}
	// A new session's Create.
	fresh := newClient(t, app)
	store.down(100 * time.Millisecond)
	if got := fresh.get("/put?v=cy"); got != "ok" || fresh.get("/get") != "cy" {
		t.Fatalf("a new session during an outage was not saved: %q", got)
	}
}

// TestSessionCreateWrittenBeforeItsError: a Create whose write landed but
// whose answer was lost is asked again, finds its own session
// (ErrSessionExists) and counts as done: the cookie names a saved session.
func TestSessionCreateWrittenBeforeItsError(t *testing.T) {
	store := newOutageStore()
	store.writeThrough = true
	app, _ := sessionApp(t, web.SessionsConfig{Store: store, StoreTimeout: 5 * time.Second})
	cl := newClient(t, app)
	store.down(60 * time.Millisecond)
	if got := cl.get("/put?v=ada"); got != "ok" {
		t.Fatalf("put: %q", got)
	}
	if got := cl.get("/get"); got != "ada" {
		t.Fatalf("the session written by the failed first Create reads %q, want ada", got)
	}
}

// TestSessionStoreOutageBounded: a store down for longer than the store
// timeout fails the request with 503 once the timeout is up, after a
// bounded number of calls at growing intervals, on a load as on a save.
func TestSessionStoreOutageBounded(t *testing.T) {
	store := newOutageStore()
	app, _ := sessionApp(t, web.SessionsConfig{Store: store, StoreTimeout: 400 * time.Millisecond})
	cl := newClient(t, app)
	cl.get("/put?v=ada")
	for _, path := range []string{"/get", "/put?v=bob"} {
		store.down(time.Hour)
		before := store.calls.Load()
		start := time.Now()
		w := cl.do("GET", path, "")
		took := time.Since(start)
		if w.Code != 503 || !strings.Contains(w.Body.String(), "session store is unavailable") {
			t.Errorf("%s with the store down: %d %s, want 503", path, w.Code, w.Body)
		}
		if took < 200*time.Millisecond || took > 3*time.Second {
			t.Errorf("%s failed after %v, want after most of the 400 ms store timeout and well within 3 s", path, took)
		}
		// 20, 40, 80, 160 ms: 5 calls fit in 400 ms; a retry loop without a
		// pause would make hundreds.
		if n := store.calls.Load() - before; n < 3 || n > 8 {
			t.Errorf("%s: %d store calls in a 400 ms timeout, want 3 to 8", path, n)
		}
	}
}

// TestSessionLoadRetryEndsWithTheClient: a load waiting for the store stops
// when its request's context ends (the client left): nothing to answer.
func TestSessionLoadRetryEndsWithTheClient(t *testing.T) {
	store := newOutageStore()
	app, _ := sessionApp(t, web.SessionsConfig{Store: store, StoreTimeout: 10 * time.Second})
	cl := newClient(t, app)
	cl.get("/put?v=ada")
	store.down(time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	r := httptest.NewRequest("GET", "/get", nil).WithContext(ctx)
	r.Header.Set("Cookie", "session="+cl.cookie["session"])
	start := time.Now()
	within(t, app, r, 5*time.Second)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("a load whose client left waited %v for the store (StoreTimeout 10s)", took)
	}
}

// TestSessionNoRetryWithoutBound: with the store timeout switched off
// (negative), a failing call is not repeated: nothing would bound the
// retries.
func TestSessionNoRetryWithoutBound(t *testing.T) {
	store := newOutageStore()
	app, _ := sessionApp(t, web.SessionsConfig{Store: store, StoreTimeout: -1})
	cl := newClient(t, app)
	cl.get("/put?v=ada")
	store.down(time.Hour)
	before := store.calls.Load()
	if w := cl.do("GET", "/get", ""); w.Code != 503 {
		t.Errorf("load with the store down and no bound: %d, want 503", w.Code)
	}
	if n := store.calls.Load() - before; n != 1 {
		t.Errorf("%d store calls without a bound, want 1", n)
	}
}

// pingStore is a store whose Ping fails on demand.
type pingStore struct {
	web.Store
	down atomic.Bool
}

func (s *pingStore) Ping(ctx context.Context) error {
	if s.down.Load() {
		return errDown
	}
	return s.Store.Ping(ctx)
}

// TestSessionsCheckIsDegraded: the store's check degrades readiness, never
// fails it: every instance shares the store, and a failing check would take
// them all out of their load balancer at once.
func TestSessionsCheckIsDegraded(t *testing.T) {
	store := &pingStore{Store: web.NewMemoryStore(web.MemoryStoreConfig{})}
	app, _ := sessionApp(t, web.SessionsConfig{Store: store})
	app.Config.ReadinessCacheTTL = time.Nanosecond
	app.Build()
	ctx := context.Background()
	store.down.Store(true)
	if err := app.Ready(ctx); err != nil {
		t.Errorf("Ready with the session store down: %v, want nil (degraded)", err)
	}
	results, err := app.Readiness(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 || results[0].Name != "sessions" || results[0].Status != plinth.CheckDegraded {
		t.Errorf("readiness with the store down: %+v, want sessions degraded", results)
	}
	store.down.Store(false)
	if results, _ := app.Readiness(ctx); len(results) != 1 || results[0].Status != plinth.CheckOK {
		t.Errorf("readiness with the store back: %+v", results)
	}
}
