package redisstore_test

import (
	"context"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/redisstore"
	"github.com/plinth-go/plinth/web"
)

// TestSignInThrottleParallel sends 50 wrong passwords for one account from
// one address at once to a sign-in form throttled in Redis: at most the
// bucket's 5 tokens reach the password check, the others get 429 with
// Retry-After; a successful sign-in then gives its token back.
func TestSignInThrottleParallel(t *testing.T) {
	rdb, prefix := testClient(t)
	store := redisstore.NewRateLimitStore(redisstore.RateLimitStoreConfig{Client: rdb, Prefix: prefix, Timeout: 5 * time.Second})
	const attempts, limit = 50, 5
	demo, err := web.PasswordParams{Memory: 64, Time: 1}.Hash("demo-password")
	if err != nil {
		t.Fatal(err)
	}
	sessions, err := web.NewSessions(web.SessionsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	auth := web.NewAuth(web.AuthConfig[string]{
		LoadUser:        func(_ context.Context, id string) (string, error) { return id, nil },
		LoginLimitStore: store,
	})
	pw := web.NewPasswords(web.PasswordsConfig{Params: web.PasswordParams{Memory: 64, Time: 1}, Queue: attempts})
	var checked, refused atomic.Int64
	var hold atomic.Bool
	hold.Store(true)
	release := make(chan struct{})
	app := plinth.New()
	app.Logger = discardLogger()
	sessions.Attach(app)
	auth.Attach(app)
	app.With(auth.Throttle()).Post("/login", func(c *plinth.Ctx) error {
		checked.Add(1)
		if hold.Load() {
			<-release
		}
		ok, _, err := pw.Check(c.Context(), demo, c.Request().PostFormValue("password"))
		if err != nil {
			return err
		}
		if !ok {
			return c.Text(200, "wrong")
		}
		if err := auth.Login(c, "1"); err != nil {
			return err
		}
		return c.Redirect(303, "/")
	})
	post := func(password string, remote ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/login", strings.NewReader(url.Values{"email": {"demo@example.com"}, "password": {password}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if len(remote) > 0 {
			r.RemoteAddr = remote[0]
		}
		w := httptest.NewRecorder()
		app.ServeHTTP(w, r)
		return w
	}

	var wg sync.WaitGroup
	for range attempts {
		wg.Go(func() {
			w := post("guess")
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
	deadline := time.Now().Add(20 * time.Second)
	for checked.Load()+refused.Load() != attempts {
		if time.Now().After(deadline) {
			t.Fatalf("gave up: %d checked, %d refused", checked.Load(), refused.Load())
		}
		time.Sleep(time.Millisecond)
	}
	hold.Store(false)
	close(release)
	wg.Wait()
	if n := checked.Load(); n > limit {
		t.Errorf("%d of %d parallel wrong passwords reached the password check, want at most %d", n, attempts, limit)
	}
	if w := post("demo-password"); w.Code != 429 {
		t.Errorf("right password with the bucket empty: %d", w.Code)
	}

	// A success gives its token back (from another address: a bucket of
	// its own).
	for i, step := range []struct {
		password string
		want     int
	}{
		{"guess", 200}, {"guess", 200}, {"guess", 200}, {"guess", 200},
		{"demo-password", 303}, {"demo-password", 303}, {"demo-password", 303}, {"demo-password", 303},
		{"guess", 200}, {"guess", 429}, {"demo-password", 429},
	} {
		if w := post(step.password, "192.0.2.2:1234"); w.Code != step.want {
			t.Fatalf("step %d (%s) from another address: %d, want %d", i, step.password, w.Code, step.want)
		}
	}
}
