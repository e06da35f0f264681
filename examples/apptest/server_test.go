package apptest

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// httptest.NewServer serves the App over a real loopback connection, for
// what a recorder cannot show: a real client (redirects followed, bodies
// streamed), the connection's peer address, Flush and Hijack.
func TestOverHTTP(t *testing.T) {
	srv := httptest.NewServer(NewApp())
	defer srv.Close()

	// The router redirects the unclean path with 307; the client follows.
	res, err := srv.Client().Get(srv.URL + "/hello//Ada/../Ada")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || string(body) != "Hello, Ada!" {
		t.Fatalf("got %d %q", res.StatusCode, body)
	}
	if res.Request.URL.Path != "/hello/Ada" {
		t.Errorf("ended at %s, want /hello/Ada", res.Request.URL.Path)
	}
}

// app.Serve runs Plinth's own server loop (its timeouts and limits, the
// health probes, the drain) on a listener the test owns: the probes are
// answered there, before routing, so ServeHTTP never sees them.
func TestProbesAndDrain(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	app := NewApp()
	app.Config.Logger = slog.New(slog.DiscardHandler) // no startup line in the test output
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- app.Serve(ctx, ln) }()

	res, err := http.Get("http://" + ln.Addr().String() + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("/readyz: %d, want 200", res.StatusCode)
	}

	stop() // what SIGTERM does to Run: drain, then return
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v, want nil after a clean drain", err)
	}
}
