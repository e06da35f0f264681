package metrics_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/observe/metrics"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// serve runs app.Serve on a loopback listener until the test ends, and
// returns the App's base URL once it answers.
func serve(t *testing.T, app *plinth.App) (string, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return")
		}
	})
	return "http://" + ln.Addr().String(), done
}

func TestSeparateAddr(t *testing.T) {
	t.Setenv("PLINTH_METRICS_ADDR", "127.0.0.1:0")
	t.Setenv("PLINTH_DRAIN_DELAY", "0s")
	app, m := testApp(t, metrics.Config{})
	base, _ := serve(t, app)
	if code, _ := get(t, base+"/users/1"); code != 200 {
		t.Fatalf("GET /users/1 on the App: %d", code)
	}
	if code, _ := get(t, base+"/metrics"); code != 404 {
		t.Errorf("GET /metrics on the App: %d, want 404 (served on PLINTH_METRICS_ADDR)", code)
	}
	addr := m.Addr()
	if addr == "" {
		t.Fatal("no separate server after Serve started")
	}
	code, body := get(t, "http://"+addr+"/metrics")
	if code != 200 {
		t.Fatalf("GET /metrics on %s: %d", addr, code)
	}
	if !strings.Contains(body, `http_server_request_duration_seconds_count{http_request_method="GET",http_response_status_class="2xx",http_route="/users/{id}"} 1`) {
		t.Errorf("the separate server's exposition lacks the App's request:\n%s", body)
	}
	if !strings.Contains(body, `http_route="unmatched"} 1`) {
		t.Error("the App's 404 for /metrics was not measured as unmatched")
	}
}

func TestSeparateAddrStops(t *testing.T) {
	t.Setenv("PLINTH_METRICS_ADDR", "127.0.0.1:0")
	app, m := testApp(t, metrics.Config{Addr: "127.0.0.1:1"}) // the variable wins
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	for m.Addr() == "" {
		select {
		case err := <-done:
			t.Fatalf("Serve returned early: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	addr := m.Addr()
	if code, _ := get(t, "http://"+addr+"/metrics"); code != 200 {
		t.Fatalf("GET /metrics on %s: %d", addr, code)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if m.Addr() != "" {
		t.Error("the separate server still runs after Serve returned")
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections after the shutdown", addr)
	}
}

func TestSeparateAddrErrors(t *testing.T) {
	t.Setenv("PLINTH_METRICS_ADDR", "not-an-address")
	app, _ := testApp(t, metrics.Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	err = app.Serve(context.Background(), ln)
	if err == nil || !strings.Contains(err.Error(), "PLINTH_METRICS_ADDR") {
		t.Errorf("Serve with a bad PLINTH_METRICS_ADDR: %v, want an error naming it", err)
	}

	// A bad Config.Addr is data too: an error at start, not a panic in New.
	t.Setenv("PLINTH_METRICS_ADDR", "")
	os.Unsetenv("PLINTH_METRICS_ADDR")
	appC, _ := testApp(t, metrics.Config{Addr: "localhost"})
	lnC, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	err = appC.Serve(context.Background(), lnC)
	if err == nil || !strings.Contains(err.Error(), `Config.Addr "localhost"`) {
		t.Errorf("Serve with Config.Addr \"localhost\": %v, want an error naming the field", err)
	}

	// A port in use stops start-up too.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	t.Setenv("PLINTH_METRICS_ADDR", busy.Addr().String())
	app2, _ := testApp(t, metrics.Config{})
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := app2.Serve(context.Background(), ln2); err == nil || !strings.Contains(err.Error(), busy.Addr().String()) {
		t.Errorf("Serve with the metrics port in use: %v, want an error naming it", err)
	}
}

// TestServeMakesSeriesAtStart checks that an App run by Serve has every
// route's series before its first request (the OnStart hook).
func TestServeMakesSeriesAtStart(t *testing.T) {
	app, m := testApp(t, metrics.Config{})
	base, _ := serve(t, app)
	_ = base
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, ok := count(t, m.Registry(), durationName, "POST", "/users", "5xx"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no series for POST /users after start-up")
		}
		time.Sleep(time.Millisecond)
	}
}
