package tracing_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/observe/tracing"
)

// TestDeclaresItsVariables: New declares the PLINTH_TRACING_*
// variables to the App, so that the start-up check of misspelled PLINTH_*
// variables knows them and names them for a misspelling.
func TestDeclaresItsVariables(t *testing.T) {
	t.Setenv("OTEL_SDK_DISABLED", "true")
	t.Setenv("PLINTH_TRACING_TRUST_REMOTE", "none")
	t.Setenv("PLINTH_TRACING_FORWARD_BAGAGE", "true")
	var buf bytes.Buffer
	app := plinth.New()
	app.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	app.Config.ShutdownTimeout = time.Second
	if _, err := tracing.New(app, tracing.Config{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	app.OnStart(func(context.Context) error { cancel(); return nil })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Serve(ctx, ln); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "PLINTH_TRACING_TRUST_REMOTE is not read") {
		t.Errorf("a variable tracing reads was reported:\n%s", out)
	}
	if !strings.Contains(out, "did you mean PLINTH_TRACING_FORWARD_BAGGAGE?") {
		t.Errorf("no warning naming PLINTH_TRACING_FORWARD_BAGGAGE:\n%s", out)
	}
}
