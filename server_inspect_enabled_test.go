//go:build plinth_inspect

package plinth

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// In a plinth_inspect build, with PLINTH_INSPECT set, Run writes the
// description and exits 0 before listening and before the OnStart hooks; a
// bad value is Run's error; an existing output file is not overwritten.
// (go test -tags plinth_inspect runs it; cmd/plinth's tests cover the same
// path through `plinth routes`.)
func TestInspectRun(t *testing.T) {
	if dir := os.Getenv("PLINTH_TEST_INSPECT_CHILD"); dir != "" {
		a := inspectApp()
		a.OnStart(func(ctx context.Context) error {
			return os.WriteFile(filepath.Join(dir, "started"), nil, 0o644)
		})
		err := a.Run()
		os.WriteFile(filepath.Join(dir, "returned"), []byte(fmt.Sprint(err)), 0o644)
		os.Exit(3)
	}
	for _, tc := range []struct {
		mode     string
		exit     int
		out      string // in the output file
		returned string // Run's error
	}{
		{"routes", 0, `"pattern": "GET /hello/{name}"`, ""},
		{"openapi", 3, "", "no OpenAPI document"},
		{"bogus", 3, "", "want routes or openapi"},
		{"routes", 3, "precious", "file exists"}, // out.json exists
	} {
		dir := t.TempDir()
		out := filepath.Join(dir, "out.json")
		if tc.out == "precious" {
			os.WriteFile(out, []byte("precious"), 0o644)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestInspectRun$")
		cmd.Env = append(os.Environ(), "PLINTH_TEST_INSPECT_CHILD="+dir, "PLINTH_INSPECT="+tc.mode,
			"PLINTH_INSPECT_OUTPUT="+out, "PLINTH_ADDR=127.0.0.1:0")
		combined, err := cmd.CombinedOutput()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.exit {
			t.Errorf("%s: exit %d, want %d; output:\n%s", tc.mode, code, tc.exit, combined)
		}
		if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
			t.Errorf("%s: the OnStart hook ran", tc.mode)
		}
		got, _ := os.ReadFile(out)
		if !strings.Contains(string(got), tc.out) || tc.out == "" && len(got) > 0 {
			t.Errorf("%s: output %q, want it to contain %q", tc.mode, got, tc.out)
		}
		ret, _ := os.ReadFile(filepath.Join(dir, "returned"))
		if !strings.Contains(string(ret), tc.returned) || tc.returned == "" && len(ret) > 0 {
			t.Errorf("%s: Run returned %q, want %q", tc.mode, ret, tc.returned)
		}
	}
}
