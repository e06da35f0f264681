package metrics_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/observe/metrics"
)

// TestDeclaresItsVariable: New declares PLINTH_METRICS_ADDR to
// the App, so that the start-up check of misspelled PLINTH_* variables
// knows it and names it for a misspelling.
func TestDeclaresItsVariable(t *testing.T) {
	t.Setenv("PLINTH_METRICS_ADRR", "127.0.0.1:0")
	var buf bytes.Buffer
	app := plinth.New()
	app.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	app.Config.ShutdownTimeout = time.Second
	metrics.New(app, metrics.Config{})
	ctx, cancel := context.WithCancel(t.Context())
	app.OnStart(func(context.Context) error { cancel(); return nil })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Serve(ctx, ln); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "did you mean PLINTH_METRICS_ADDR?") {
		t.Errorf("no warning naming PLINTH_METRICS_ADDR:\n%s", buf.String())
	}
}
