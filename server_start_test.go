package plinth

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// OnStart hooks run in order before the first request is served.
func TestOnStartRunsBeforeServing(t *testing.T) {
	app := Bare()
	var order []string
	var started atomic.Bool
	app.OnStart(func(context.Context) error { order = append(order, "a"); return nil })
	app.OnStart(func(context.Context) error { order = append(order, "b"); started.Store(true); return nil })
	app.Get("/", func(c *Ctx) error {
		if !started.Load() {
			return c.Text(500, "served before the start hooks")
		}
		return c.Text(200, strings.Join(order, ","))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := serveApp(t, app, ln)
	res, err := http.Get(s.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(b) != "a,b" {
		t.Errorf("%d %q", res.StatusCode, b)
	}
}

// A failing OnStart hook: nothing is served, later hooks do not run, the
// OnStop hooks do (in reverse), the listener is closed, and Serve
// returns the hook's error.
func TestOnStartFailureStopsStartup(t *testing.T) {
	app := Bare()
	boom := errors.New("cache unreachable")
	var ran []string
	app.OnStop(func(context.Context) error { ran = append(ran, "stop1"); return nil })
	app.OnStop(func(context.Context) error { ran = append(ran, "stop2"); return nil })
	app.OnStart(func(context.Context) error { ran = append(ran, "start1"); return boom })
	app.OnStart(func(context.Context) error { ran = append(ran, "start2"); return nil })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := serveApp(t, app, ln)
	err = s.wait(t, forever)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "start-up hook 1 of 2") {
		t.Errorf("Serve: %v", err)
	}
	if got := strings.Join(ran, ","); got != "start1,stop2,stop1" {
		t.Errorf("hooks ran %s", got)
	}
	if c, err := net.Dial("tcp", s.addr); err == nil {
		c.Close()
		t.Error("the listener still accepts after a failed start")
	}
}

// App.Ready follows the readiness checks, as the probe does.
func TestAppReady(t *testing.T) {
	app := Bare()
	app.Config.ReadinessCacheTTL = time.Nanosecond
	var down atomic.Bool
	app.ReadinessCheck("db", 0, func(context.Context) error {
		if down.Load() {
			return errors.New("connection refused")
		}
		return nil
	})
	if err := app.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	down.Store(true)
	time.Sleep(time.Millisecond) // past the cache's nanosecond
	if err := app.Ready(context.Background()); err == nil || !strings.Contains(err.Error(), "db: connection refused") {
		t.Errorf("Ready: %v", err)
	}
}
