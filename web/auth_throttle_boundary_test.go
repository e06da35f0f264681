package web_test

// Boundary tests of the sign-in Throttle from mutation testing: the Limit
// it normalizes and hands its store, the key, the
// Retry-After rounding at exactly a whole second, which requests take and
// give back a token, and what a store failure does. The store is a fake
// that records its calls and answers as told: nothing depends on time.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/web"
)

// bndStore is a rate-limit store (and Refunder) that records its calls and
// returns res / err.
type bndStore struct {
	mu        sync.Mutex
	takes     []string
	limits    []middleware.Limit
	refunds   []string
	res       middleware.Result
	err       error
	refundErr error
}

func (s *bndStore) Take(_ context.Context, key string, _ time.Time, lim middleware.Limit) (middleware.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.takes = append(s.takes, key)
	s.limits = append(s.limits, lim)
	return s.res, s.err
}

func (s *bndStore) Refund(_ context.Context, key string, _ time.Time, lim middleware.Limit) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refunds = append(s.refunds, key)
	return s.refundErr
}

type bndThrottleApp struct {
	app *plinth.App
	log *bytes.Buffer
}

// bndThrottled returns an App whose POST /login is behind Throttle: the
// password "right" signs in, "busy" answers as a busy hashing pool does,
// any other is a failure (200 "wrong"). GET /login shows the form.
func bndThrottled(t *testing.T, cfg web.AuthConfig[string]) bndThrottleApp {
	t.Helper()
	s, err := web.NewSessions(web.SessionsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.LoadUser = func(_ context.Context, id string) (string, error) { return id, nil }
	auth := web.NewAuth(cfg)
	var buf bytes.Buffer
	app := plinth.New()
	app.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	s.Attach(app)
	auth.Attach(app)
	field := cfg.LoginField
	if field == "" {
		field = web.DefaultLoginField
	}
	login := func(c *plinth.Ctx) error {
		switch c.Request().PostFormValue("password") {
		case "right":
			if err := auth.Login(c, "1"); err != nil {
				return err
			}
			return c.Text(200, "signed in as "+c.Request().PostFormValue(field))
		case "busy":
			return fmt.Errorf("checking: %w", web.ErrPasswordBusy)
		}
		return c.Text(200, "wrong")
	}
	app.With(auth.Throttle()).Post("/login", login)
	app.With(auth.Throttle()).Get("/login", func(c *plinth.Ctx) error { return c.Text(200, "form") })
	return bndThrottleApp{app: app, log: &buf}
}

func (a bndThrottleApp) post(field, account, password string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", "/login", strings.NewReader(url.Values{field: {account}, "password": {password}}.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.RemoteAddr = "192.0.2.7:4321"
	w := httptest.NewRecorder()
	a.app.ServeHTTP(w, r)
	return w
}

// loginClientDefault is the per-client bucket's Limit the store gets with
// the zero AuthConfig.LoginClientLimit, taken before the per-account one.
var loginClientDefault = middleware.Limit{Name: "login-client", Rate: 20, Per: time.Minute, Burst: 20}

// The Limits handed to the store: the zero Limit is the documented default,
// a partial one gets Name, Per and Burst filled in, a full one is kept as
// given. The per-client bucket's comes first.
func TestThrottleLimitNormalized(t *testing.T) {
	for _, c := range []struct {
		name string
		in   middleware.Limit
		want middleware.Limit
	}{
		{"zero", middleware.Limit{}, middleware.Limit{Name: "login", Rate: 5, Per: time.Minute, Burst: 5}},
		{"rate only", middleware.Limit{Rate: 3}, middleware.Limit{Name: "login", Rate: 3, Per: time.Second, Burst: 3}},
		{"full", middleware.Limit{Name: "signin", Rate: 2, Per: time.Hour, Burst: 7},
			middleware.Limit{Name: "signin", Rate: 2, Per: time.Hour, Burst: 7}},
		{"one", middleware.Limit{Rate: 1, Burst: 1}, middleware.Limit{Name: "login", Rate: 1, Per: time.Second, Burst: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := &bndStore{res: middleware.Result{Allowed: true}}
			a := bndThrottled(t, web.AuthConfig[string]{LoginLimit: c.in, LoginLimitStore: st})
			if w := a.post("email", "ada@example.com", "nope"); w.Code != 200 {
				t.Fatalf("POST: %d", w.Code)
			}
			if len(st.limits) != 2 || st.limits[0] != loginClientDefault || st.limits[1] != c.want {
				t.Errorf("store got %+v, want %+v then %+v", st.limits, loginClientDefault, c.want)
			}
		})
	}
}

// A Rate or Burst below 1 is the program's mistake: NewAuth panics; 1 and 1
// are fine (checked above).
func TestThrottleLimitBelowOnePanics(t *testing.T) {
	for _, lim := range []middleware.Limit{
		{Rate: 0, Per: time.Second, Burst: 5},
		{Rate: 5, Burst: -1},
		{Rate: -1},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("LoginLimit %+v did not panic", lim)
				}
			}()
			web.NewAuth(web.AuthConfig[string]{
				LoadUser:   func(context.Context, string) (string, error) { return "", nil },
				LoginLimit: lim,
			})
		}()
	}
}

// The per-client bucket's key is the client address; the per-account
// bucket's the client address and the account, trimmed and lower-cased,
// read from LoginField; only POSTs take a token.
func TestThrottleKey(t *testing.T) {
	st := &bndStore{res: middleware.Result{Allowed: true}}
	a := bndThrottled(t, web.AuthConfig[string]{LoginLimitStore: st})
	a.post("email", "  Ada@Example.COM ", "nope")
	st2 := &bndStore{res: middleware.Result{Allowed: true}}
	b := bndThrottled(t, web.AuthConfig[string]{LoginLimitStore: st2, LoginField: "user"})
	b.post("user", "Bob", "nope")
	if got := strings.Join(st.takes, " "); got != "192.0.2.7 192.0.2.7|ada@example.com" {
		t.Errorf("key %q", got)
	}
	if got := strings.Join(st2.takes, " "); got != "192.0.2.7 192.0.2.7|bob" {
		t.Errorf("key with LoginField user: %q", got)
	}

	w := httptest.NewRecorder()
	a.app.ServeHTTP(w, httptest.NewRequest("GET", "/login", nil))
	if w.Code != 200 || len(st.takes) != 2 {
		t.Errorf("GET /login: %d, %d takes (want the one POST's two only)", w.Code, len(st.takes))
	}
}

// A refused attempt gets 429 with Retry-After rounded up to whole seconds,
// at least 1, and its handler does not run.
func TestThrottleRetryAfterRounding(t *testing.T) {
	for _, c := range []struct {
		retry time.Duration
		want  string
	}{
		{0, "1"},
		{time.Nanosecond, "1"},
		{time.Second, "1"},
		{time.Second + time.Nanosecond, "2"},
		{2 * time.Second, "2"},
		{2*time.Second + time.Nanosecond, "3"},
		{12 * time.Second, "12"},
	} {
		st := &bndStore{res: middleware.Result{Allowed: false, RetryAfter: c.retry}}
		a := bndThrottled(t, web.AuthConfig[string]{LoginLimitStore: st})
		w := a.post("email", "ada@example.com", "right")
		if w.Code != http.StatusTooManyRequests {
			t.Errorf("RetryAfter %v: status %d, want 429", c.retry, w.Code)
		}
		if got := w.Header().Get("Retry-After"); got != c.want {
			t.Errorf("RetryAfter %v: Retry-After %q, want %q", c.retry, got, c.want)
		}
		if strings.Contains(w.Body.String(), "signed in") || len(st.refunds) != 0 {
			t.Errorf("RetryAfter %v: the handler ran (%q), refunds %v", c.retry, w.Body.String(), st.refunds)
		}
	}
}

// A sign-in and a busy refusal give their tokens back (the per-account
// bucket's, then the per-client one's); a failure keeps them.
// A refund the store fails is logged.
func TestThrottleRefunds(t *testing.T) {
	st := &bndStore{res: middleware.Result{Allowed: true}}
	a := bndThrottled(t, web.AuthConfig[string]{LoginLimitStore: st})
	if w := a.post("email", "ada@example.com", "nope"); w.Body.String() != "wrong" {
		t.Fatalf("failure: %d %q", w.Code, w.Body.String())
	}
	if len(st.refunds) != 0 {
		t.Errorf("a failed attempt was refunded: %v", st.refunds)
	}
	if w := a.post("email", "ada@example.com", "right"); !strings.HasPrefix(w.Body.String(), "signed in") {
		t.Fatalf("sign-in: %d %q", w.Code, w.Body.String())
	}
	if got := strings.Join(st.refunds, " "); got != "192.0.2.7|ada@example.com 192.0.2.7" {
		t.Errorf("after a sign-in, refunds %q", got)
	}
	a.post("email", "ada@example.com", "busy")
	if len(st.refunds) != 4 {
		t.Errorf("a busy refusal was not refunded: %v", st.refunds)
	}
	if strings.Contains(a.log.String(), "successful attempt was counted") {
		t.Errorf("a refund that worked was logged as failed: %s", a.log)
	}

	st.refundErr = errors.New("store down")
	a.post("email", "ada@example.com", "right")
	if !strings.Contains(a.log.String(), "successful attempt was counted") {
		t.Errorf("a failed refund was not logged: %q", a.log)
	}
}

// A store that fails lets the attempt through, uncounted, with a warning;
// the handler runs.
func TestThrottleStoreFailureLetsThrough(t *testing.T) {
	st := &bndStore{err: errors.New("store down")}
	a := bndThrottled(t, web.AuthConfig[string]{LoginLimitStore: st})
	w := a.post("email", "ada@example.com", "nope")
	if w.Code != 200 || w.Body.String() != "wrong" {
		t.Errorf("with the store down: %d %q, want the handler's answer", w.Code, w.Body.String())
	}
	if !strings.Contains(a.log.String(), "the attempt was not counted") {
		t.Errorf("no warning: %q", a.log)
	}
	if len(st.refunds) != 0 {
		t.Errorf("refunds %v", st.refunds)
	}
}

// Without a store, Throttle keeps its own: Burst failures pass, the next is
// refused (a Rate of one per hour: no refill during the test).
func TestThrottleDefaultStore(t *testing.T) {
	a := bndThrottled(t, web.AuthConfig[string]{LoginLimit: middleware.Limit{Rate: 1, Per: time.Hour, Burst: 2}})
	for i := range 2 {
		if w := a.post("email", "ada@example.com", "nope"); w.Code != 200 {
			t.Fatalf("attempt %d: %d", i+1, w.Code)
		}
	}
	if w := a.post("email", "ada@example.com", "nope"); w.Code != http.StatusTooManyRequests {
		t.Errorf("attempt 3 of a bucket of 2: %d, want 429", w.Code)
	}
	if w := a.post("email", "bob@example.com", "nope"); w.Code != 200 {
		t.Errorf("another account: %d, want 200", w.Code)
	}
}
