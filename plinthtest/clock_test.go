package plinthtest_test

import (
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
