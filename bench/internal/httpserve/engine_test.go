package httpserve

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
)

// The engine's frameworks serve the App on Plinth's engine (Config.Engine
// "fast") and fasthttp its native handler, and both answer the scenarios'
// requests over real HTTP, one at a time and pipelined.
func TestEngineFrameworks(t *testing.T) {
	for _, fw := range EngineFrameworks {
		for _, sc := range []string{"minimal", "json"} {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			var stop func()
			if fw == FastHTTP {
				s, served, err := ServeFastHTTP(sc, ln)
				if err != nil {
					t.Fatal(err)
				}
				stop = func() { s(); <-served }
			} else {
				h, err := HandlerNamed(fw, sc)
				if err != nil {
					t.Fatal(err)
				}
				app, ok := h.(*plinth.App)
				if !ok || app.Config.Engine != plinth.EngineFast {
					t.Fatalf("%s on %s: %T not on the engine", fw, sc, h)
				}
				app.Logger = slog.New(slog.DiscardHandler)
				ctx, cancel := context.WithCancel(context.Background())
				served := make(chan error, 1)
				go func() { served <- app.Serve(ctx, ln) }()
				stop = func() {
					cancel()
					if err := <-served; err != nil {
						t.Errorf("%s: Serve: %v", fw, err)
					}
				}
			}
			reqs, err := Requests(sc)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Dial(ln.Addr().String(), reqs, 2)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Send(20); err != nil {
				t.Errorf("%s on %s: %v", fw, sc, err)
			}
			if err := c.SendPipelined(64, 16); err != nil {
				t.Errorf("%s on %s pipelined: %v", fw, sc, err)
			}
			c.Close()
			resp, err := http.Get("http://" + ln.Addr().String() + map[string]string{"minimal": "/", "json": "/accounts/42"}[sc])
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if want := map[string]string{"minimal": "Hello, World!", "json": `"id":42`}[sc]; !strings.Contains(string(body), want) {
				t.Errorf("%s on %s: body %q lacks %q", fw, sc, body, want)
			}
			stop()
		}
	}
	if _, err := HandlerNamed("std-fast", "minimal"); err == nil {
		t.Error("std-fast: no error (only plinth and plinth-new have an engine form)")
	}
	if _, err := FastHTTPServer("routes-50"); err == nil {
		t.Error("fasthttp on routes-50: no error")
	}
}
