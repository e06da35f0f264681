package plinth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func inspectApp() *App {
	a := New()
	a.Get("/hello/{name}", func(c *Ctx) error { return nil })
	a.Group("/api").Post("/items", func(c *Ctx) error { return nil })
	return a
}

func TestInspection(t *testing.T) {
	a := inspectApp()
	out, err := a.inspection("routes")
	if err != nil {
		t.Fatal(err)
	}
	var routes []map[string]string
	if err := json.Unmarshal(out, &routes); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(routes) != 2 || routes[0]["method"] != "GET" || routes[0]["pattern"] != "GET /hello/{name}" ||
		routes[1]["pattern"] != "POST /api/items" || !strings.Contains(routes[0]["source"], "server_inspect_test.go:") ||
		routes[0]["handler"] == "" {
		t.Errorf("routes: %s", out)
	}

	if _, err := a.inspection("openapi"); err == nil || !strings.Contains(err.Error(), "no OpenAPI document") {
		t.Errorf("openapi without a document: %v", err)
	}
	if _, err := a.inspection("nonsense"); err == nil || !strings.Contains(err.Error(), `PLINTH_INSPECT="nonsense": want routes or openapi`) {
		t.Errorf("a bad mode: %v", err)
	}

	b := inspectApp()
	b.SetOpenAPI(func() ([]byte, error) { return []byte(`{"openapi":"3.1.0"}`), nil })
	if out, err := b.inspection("openapi"); err != nil || string(out) != "{\"openapi\":\"3.1.0\"}\n" {
		t.Errorf("openapi: %q %v", out, err)
	}
	c := inspectApp()
	c.SetOpenAPI(func() ([]byte, error) { return nil, errors.New("broken") })
	if _, err := c.inspection("openapi"); err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("a failing document: %v", err)
	}
}

// With PLINTH_INSPECT set, Run writes the description and exits 0 before
// listening and before the OnStart hooks; a bad value is Run's error.
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
	} {
		dir := t.TempDir()
		out := filepath.Join(dir, "out.json")
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
