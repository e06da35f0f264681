package plinth

import (
	"context"
	"encoding/json"
	"errors"
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

// An added mode receives the words after its name; its error is the
// inspection's; a bad or duplicate name panics; the bad-mode error lists
// the added modes.
func TestAddInspection(t *testing.T) {
	a := inspectApp()
	var got []string
	a.AddInspection("jobs", func(ctx context.Context, args []string) ([]byte, error) {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("no deadline")
		}
		got = args
		if len(args) > 0 && args[0] == "fail" {
			return nil, errors.New("no such job")
		}
		return []byte(`[]`), nil
	})
	if out, err := a.inspection("jobs  retry 42"); err != nil || string(out) != "[]\n" || strings.Join(got, ",") != "retry,42" {
		t.Errorf("jobs retry 42: %q %v %q", out, err, got)
	}
	if _, err := a.inspection("jobs fail"); err == nil || !strings.Contains(err.Error(), `PLINTH_INSPECT="jobs fail": no such job`) {
		t.Errorf("failing mode: %v", err)
	}
	if _, err := a.inspection("cache"); err == nil || !strings.Contains(err.Error(), "want routes or openapi, jobs") {
		t.Errorf("unknown mode: %v", err)
	}
	for _, name := range []string{"", "two words", "routes", "openapi", "jobs"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("AddInspection(%q) did not panic", name)
				}
			}()
			a.AddInspection(name, func(context.Context, []string) ([]byte, error) { return nil, nil })
		}()
	}
}
