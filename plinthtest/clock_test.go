package plinthtest_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/plinthtest"
	"github.com/plinth-go/plinth/web"
)

// The fake clock drives a session's idle timeout and a rate limit: no
// sleeping.
func TestClock(t *testing.T) {
	clk := plinthtest.NewClock(time.Time{})
	store := web.NewMemoryStore(web.MemoryStoreConfig{Clock: clk.Now})
	sessions, err := web.NewSessions(web.SessionsConfig{Store: store, Clock: clk.Now, IdleTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	limiter := middleware.NewRateLimiter(middleware.RateLimiterConfig{
		Limit: middleware.Limit{Rate: 1, Per: time.Minute}, Clock: clk.Now,
	})
	app := plinth.New()
	sessions.Attach(app)
	app.Get("/visit", func(c *plinth.Ctx) error {
		sess, err := web.SessionOf(c)
		if err != nil {
			return err
		}
		n, _ := web.Get[int](sess, "n")
		sess.Put("n", n+1)
		return c.JSON(200, n+1)
	})
	app.With(limiter.Middleware()).Get("/limited", func(c *plinth.Ctx) error { return c.NoContent(204) })
	c := plinthtest.New(t, app, plinthtest.Config{})

	c.Get("/visit").JSONEq(`1`)
	clk.Advance(59 * time.Minute)
	c.Get("/visit").JSONEq(`2`) // used within the hour: kept
	clk.Advance(61 * time.Minute)
	c.Get("/visit").JSONEq(`1`) // idle for more than an hour: a new session

	c.Get("/limited").Status(204)
	c.Get("/limited").Status(429)
	clk.Advance(time.Minute)
	c.Get("/limited").Status(204)
}

// The sign-in throttle's buckets refill on the fake clock too
// (web.AuthConfig.Clock).
func TestClockLoginThrottle(t *testing.T) {
	clk := plinthtest.NewClock(time.Time{})
	sessions, err := web.NewSessions(web.SessionsConfig{Clock: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	auth := web.NewAuth(web.AuthConfig[string]{
		LoadUser:   func(ctx context.Context, id string) (string, error) { return id, nil },
		LoginLimit: middleware.Limit{Rate: 1, Per: time.Minute},
		Clock:      clk.Now,
	})
	app := plinth.New()
	sessions.Attach(app)
	auth.Attach(app)
	// every attempt fails: nothing calls Login, so no token is given back
	app.With(auth.Throttle()).Post("/login", func(c *plinth.Ctx) error { return c.Text(200, "wrong password") })
	c := plinthtest.New(t, app, plinthtest.Config{})
	form := url.Values{"email": {"ada@example.com"}, "password": {"nope"}}

	c.PostForm("/login", form).Status(200)
	c.PostForm("/login", form).Status(429)
	clk.Advance(59 * time.Second)
	c.PostForm("/login", form).Status(429)
	clk.Advance(time.Second)
	c.PostForm("/login", form).Status(200)
}
