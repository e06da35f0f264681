package plinth_test

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
)

// onFastEngine reports whether app will be served by Plinth's engine: the
// suite run by TestServerTestsOnEngine sets PLINTH_ENGINE=fast.
func onFastEngine(app *plinth.App) bool {
	return os.Getenv("PLINTH_ENGINE") == plinth.EngineFast || app.Config.Engine == plinth.EngineFast
}

// refusedOnEngine is for the tests of what the engine does not do (TLS,
// HTTP/2, h2c; docs/engine.md): on the engine it asserts that Serve refuses app
// at once with an error naming what was asked, and returns true (the test
// then ends); on net/http it returns false.
func refusedOnEngine(t *testing.T, app *plinth.App, what ...string) bool {
	t.Helper()
	if !onFastEngine(app) {
		return false
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Second):
		cancel()
		<-done
		t.Fatalf("the engine served %v instead of refusing it", what)
	}
	if err == nil {
		t.Fatalf("the engine: Serve returned nil for %v, want a refusal", what)
	}
	for _, w := range what {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the engine's refusal %q does not name %q", err, w)
		}
	}
	return true
}

func TestEngineProtocolsRefused(t *testing.T) {
	dir := t.TempDir()
	cert, key := writeSelfSigned(t, dir)
	app := protoApp()
	app.Config.Engine = plinth.EngineFast
	app.Config.TLSCertFile, app.Config.TLSKeyFile = cert, key
	refusedOnEngine(t, app, "TLS")
	app = protoApp()
	app.Config.Engine = plinth.EngineFast
	app.Config.H2C = true
	refusedOnEngine(t, app, "h2c")
}
