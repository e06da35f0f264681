package web_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/web"
)

// signInApp returns an App with a throttled sign-in form at POST /login (and
// the same handler unthrottled at POST /login-plain) for one user,
// demo@example.com / demo-password, checking passwords with pw. onCheck,
// when set, runs before each password check: the tests count checks there.
func signInApp(t testing.TB, store middleware.RateLimitStore, limit middleware.Limit, pw *web.Passwords, onCheck func()) *plinth.App {
	t.Helper()
	demo, err := web.PasswordParams{Memory: 64, Time: 1}.Hash("demo-password")
	if err != nil {
		t.Fatal(err)
	}
	s, err := web.NewSessions(web.SessionsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	auth := web.NewAuth(web.AuthConfig[string]{
		LoadUser:        func(_ context.Context, id string) (string, error) { return id, nil },
		LoginLimit:      limit,
		LoginLimitStore: store,
	})
	app := plinth.New()
	app.Logger = slog.New(slog.DiscardHandler)
	s.Attach(app)
	auth.Attach(app)
	login := func(c *plinth.Ctx) error {
		r := c.Request()
		hash := "" // an unknown email checks against "": as slow as a known one
		if r.PostFormValue("email") == "demo@example.com" {
			hash = demo
		}
		if onCheck != nil {
			onCheck()
		}
		ok, _, err := pw.Check(c.Context(), hash, r.PostFormValue("password"))
		if err != nil {
			return err
		}
		if !ok {
			return c.Text(200, "wrong")
		}
		if err := auth.Login(c, "1"); err != nil {
			return err
		}
		return c.Redirect(303, "/account")
	}
	app.With(auth.Throttle()).Post("/login", login)
	app.Post("/login-plain", login)
	return app
}

func postTo(app *plinth.App, path, email, password string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", path, strings.NewReader(url.Values{"email": {email}, "password": {password}}.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	app.ServeHTTP(w, r)
	return w
}

func postLogin(app *plinth.App, email, password string) *httptest.ResponseRecorder {
	return postTo(app, "/login", email, password)
}

// TestThrottleParallelGuesses sends 50 wrong passwords for one account from
// one address at once: at most the bucket's 5 tokens reach the password
// check, the others get 429 with Retry-After. Counting after the check let
// every attempt in flight through (25 of 50 in the attack).
func TestThrottleParallelGuesses(t *testing.T) {
	testThrottleParallel(t, nil)
}

func testThrottleParallel(t *testing.T, store middleware.RateLimitStore) {
	const attempts, limit = 50, 5
	var checked, refused atomic.Int64
	release := make(chan struct{})
	var closeRelease sync.Once
	defer closeRelease.Do(func() { close(release) })
	pw := web.NewPasswords(web.PasswordsConfig{Params: cheap, Queue: attempts})
	app := signInApp(t, store, middleware.Limit{}, pw, func() {
		checked.Add(1)
		<-release // hold every checked attempt in flight until all have been answered or checked
	})
	var wg sync.WaitGroup
	for range attempts {
		wg.Go(func() {
			w := postLogin(app, "demo@example.com", "guess")
			switch w.Code {
			case 200:
			case 429:
				if ra, err := strconv.Atoi(w.Header().Get("Retry-After")); err != nil || ra < 1 {
					t.Errorf("429 with Retry-After %q", w.Header().Get("Retry-After"))
				}
				refused.Add(1)
			default:
				t.Errorf("attempt: %d %s", w.Code, w.Body)
			}
		})
	}
	waitFor(t, "every attempt to be checked or refused", func() bool { return checked.Load()+refused.Load() == attempts })
	closeRelease.Do(func() { close(release) })
	wg.Wait()
	if n := checked.Load(); n > limit {
		t.Errorf("%d of %d parallel wrong passwords reached the password check, want at most %d", n, attempts, limit)
	}
	if n := refused.Load(); n < attempts-limit {
		t.Errorf("%d attempts refused, want at least %d", n, attempts-limit)
	}
	// The bucket is empty: the right password waits too.
	if w := postLogin(app, "demo@example.com", "demo-password"); w.Code != 429 {
		t.Errorf("right password with the bucket empty: %d", w.Code)
	}
}

// TestThrottleSuccessGivesBack checks that a successful sign-in gives back
// the token it took before its password was checked.
func TestThrottleSuccessGivesBack(t *testing.T) {
	pw := web.NewPasswords(web.PasswordsConfig{Params: cheap})
	app := signInApp(t, nil, middleware.Limit{}, pw, nil)
	for range 4 {
		if w := postLogin(app, "demo@example.com", "guess"); w.Code != 200 {
			t.Fatalf("wrong password: %d", w.Code)
		}
	}
	for i := range 10 {
		if w := postLogin(app, "demo@example.com", "demo-password"); w.Code != 303 {
			t.Fatalf("sign-in %d after 4 failures: %d, want 303 (a success costs nothing)", i, w.Code)
		}
	}
	if w := postLogin(app, "demo@example.com", "guess"); w.Code != 200 {
		t.Fatalf("fifth failure: %d", w.Code)
	}
	if w := postLogin(app, "demo@example.com", "guess"); w.Code != 429 {
		t.Fatalf("sixth failure: %d, want 429", w.Code)
	}
}

// TestSignInBusy fills the hashing slots and the queue and checks that the
// next sign-in gets a 503 problem with Retry-After through the real handler
// (throttled or not), without costing a throttle token.
func TestSignInBusy(t *testing.T) {
	pw := web.NewPasswords(web.PasswordsConfig{Params: cheap, Slots: 1, Queue: 1, RetryAfter: 3 * time.Second})
	hold := make(chan struct{})
	var closeHold sync.Once
	defer closeHold.Do(func() { close(hold) }) // never leave a request blocked, even on failure
	var hashes atomic.Int64
	web.SetPasswordsHook(pw, func() {
		if hashes.Add(1) <= 2 {
			<-hold // the first two sign-ins hold the slot and the queue's place
		}
	})
	// One attempt per hour per address and account.
	app := signInApp(t, nil, middleware.Limit{Rate: 1, Per: time.Hour}, pw, nil)
	codes := make(chan int, 2)
	go func() { codes <- postLogin(app, "a@example.com", "x").Code }()
	waitFor(t, "the first sign-in to take the slot", func() bool { return hashes.Load() == 1 })
	go func() { codes <- postLogin(app, "b@example.com", "x").Code }()
	waitFor(t, "the second sign-in to queue", func() bool { return web.PasswordsWaiting(pw) == 1 })

	for _, path := range []string{"/login", "/login-plain"} {
		w := postTo(app, path, "c@example.com", "x")
		if w.Code != 503 || w.Header().Get("Retry-After") != "3" {
			t.Errorf("%s past the queue: %d, Retry-After %q, want 503 and 3", path, w.Code, w.Header().Get("Retry-After"))
		}
		if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
			t.Errorf("%s: Content-Type %q", path, ct)
		}
	}
	closeHold.Do(func() { close(hold) })
	for range 2 {
		if c := <-codes; c != 200 {
			t.Errorf("sign-in in the slot or the queue: %d, want 200", c)
		}
	}
	// The refused attempt's password was never checked: it cost no token.
	if w := postLogin(app, "c@example.com", "x"); w.Code != 200 {
		t.Errorf("next attempt after a 503: %d, want 200", w.Code)
	}
	if w := postLogin(app, "c@example.com", "x"); w.Code != 429 {
		t.Errorf("attempt past the limit: %d, want 429", w.Code)
	}
}
