//go:build !plinth_inspect

package plinth

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// In a normal build PLINTH_INSPECT does not stop the program: Serve logs a
// warning and serves (the OnStart hooks run, the listener accepts), and
// PLINTH_INSPECT_OUTPUT is not written.
func TestInspectIgnoredWithoutTag(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.json")
	t.Setenv(inspectEnv, "routes")
	t.Setenv(inspectOutputEnv, out)
	t.Setenv("PLINTH_DRAIN_DELAY", "0s")
	var logs bytes.Buffer
	a := inspectApp()
	a.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	ctx, cancel := context.WithCancel(context.Background())
	started := false
	a.OnStart(func(context.Context) error {
		started = true
		cancel() // served: stop
		return nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Serve(ctx, ln); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if !started {
		t.Error("the OnStart hook did not run: the App did not serve")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s was written (stat: %v)", inspectOutputEnv, err)
	}
	if !strings.Contains(logs.String(), "PLINTH_INSPECT is set but this binary was built without -tags plinth_inspect") {
		t.Errorf("no warning logged:\n%s", logs.String())
	}
}
