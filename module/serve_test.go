package module_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
)

// serveAndStop serves app on loopback, checks that it answers (unless
// start-up is expected to fail with wantErr), stops it and checks Serve's
// result.
func serveAndStop(t *testing.T, app *plinth.App, wantErr error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	if wantErr == nil {
		client := &http.Client{Timeout: 10 * time.Second}
		for i := 0; ; i++ {
			res, err := client.Get("http://" + ln.Addr().String() + "/livez")
			if err == nil {
				res.Body.Close()
				break
			}
			if i > 100 {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	cancel()
	err = <-done
	switch {
	case wantErr == nil && err != nil:
		t.Errorf("Serve: %v", err)
	case wantErr != nil && (err == nil || !strings.Contains(err.Error(), wantErr.Error())):
		t.Errorf("Serve: %v, want %v", err, wantErr)
	}
}
