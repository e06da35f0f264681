package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Serving the shop connects the payments client before the module's and
// the shop's start hooks run, and stopping it runs them in reverse.
func TestLifecycle(t *testing.T) {
	var logs logBuffer
	app := testApp(t, testDB(t), slog.New(slog.NewTextHandler(&logs, nil)))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	client := &http.Client{Timeout: 10 * time.Second}
	for i := 0; ; i++ {
		res, err := client.Get("http://" + ln.Addr().String() + "/users")
		if err == nil {
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Errorf("GET /users over HTTP: %d", res.StatusCode)
			}
			break
		}
		if i > 100 {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	want := []string{
		"payments: connected to the processor", "payments: module started", "shop: ready",
		"shop: stopping", "payments: module stopping", "payments: disconnected from the processor",
	}
	out, at := logs.String(), 0
	for _, w := range want {
		i := strings.Index(out[at:], w)
		if i < 0 {
			t.Fatalf("log lacks %q after offset %d, or has it out of order:\n%s", w, at, out)
		}
		at += i + len(w)
	}
}
