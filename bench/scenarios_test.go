package bench

import (
	"net/http"
	"strings"
	"testing"
)

// TestScenarios checks that every framework answers every request of every
// scenario (and its extra checks) with the expected status, body and
// Content-Type, twice through the same reused request and writer, as the
// benchmarks do.
func TestScenarios(t *testing.T) {
	for _, name := range ScenarioNames {
		sc, err := LoadScenario(name)
		if err != nil {
			t.Fatal(err)
		}
		spec := append(append([]Request(nil), sc.Requests...), sc.Checks...)
		for _, fw := range Frameworks {
			t.Run(name+"/"+fw.Name, func(t *testing.T) {
				h, err := fw.Build(sc.Routes)
				if err != nil {
					t.Fatal(err)
				}
				w := NewResponseWriter(true)
				for i, r := range newRequests(spec) {
					for range 2 {
						w.Reset()
						h.ServeHTTP(w, r)
						if err := spec[i].Check(w); err != nil {
							t.Error(err)
						}
					}
				}
			})
		}
	}
}

func TestGitHubTable(t *testing.T) {
	routes, err := LoadGitHubRoutes(GitHubRoutesFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(routes) != GitHubRouteCount {
		t.Errorf("%s: %d routes, want %d", GitHubRoutesFile, len(routes), GitHubRouteCount)
	}
	counts := map[string]int{}
	for _, name := range []string{GitHubAll, GitHubStatic, GitHubParam} {
		sc, err := LoadScenario(name)
		if err != nil {
			t.Fatal(err)
		}
		counts[name] = len(sc.Requests)
	}
	if counts[GitHubAll] != len(routes) || counts[GitHubStatic]+counts[GitHubParam] != len(routes) ||
		counts[GitHubStatic] == 0 || counts[GitHubParam] == 0 {
		t.Errorf("request counts %v do not split the %d routes", counts, len(routes))
	}
	// Requests must be distinct, or one route could hide another.
	seen := map[string]bool{}
	for _, rt := range routes {
		key := rt.Method + " " + RequestPath(rt.Path)
		if seen[key] {
			t.Errorf("two routes share the request %s", key)
		}
		seen[key] = true
	}
}

func TestLoadGitHubRoutesMissing(t *testing.T) {
	_, err := LoadGitHubRoutes("testdata/does-not-exist.txt")
	if err == nil || !strings.Contains(err.Error(), "GitHub route table missing") {
		t.Fatalf("err = %v, want a message saying the table is missing", err)
	}
}

func TestPathSyntax(t *testing.T) {
	for _, tt := range []struct{ in, req, mux, chi, echo string }{
		{"/", "/", "/{$}", "/", "/"},
		{"/users/:user", "/users/user", "/users/{user}", "/users/{user}", "/users/:user"},
		{"/repos/:owner/:repo/events", "/repos/owner/repo/events", "/repos/{owner}/{repo}/events",
			"/repos/{owner}/{repo}/events", "/repos/:owner/:repo/events"},
		{"/src/*filepath", "/src/filepath", "/src/{filepath...}", "/src/*", "/src/*"},
		{"/users/", "/users/", "/users/{$}", "/users/", "/users/"},
	} {
		if got := RequestPath(tt.in); got != tt.req {
			t.Errorf("RequestPath(%q) = %q, want %q", tt.in, got, tt.req)
		}
		if got := MuxPath(tt.in); got != tt.mux {
			t.Errorf("MuxPath(%q) = %q, want %q", tt.in, got, tt.mux)
		}
		if got := ChiPath(tt.in); got != tt.chi {
			t.Errorf("ChiPath(%q) = %q, want %q", tt.in, got, tt.chi)
		}
		if got := EchoPath(tt.in); got != tt.echo {
			t.Errorf("EchoPath(%q) = %q, want %q", tt.in, got, tt.echo)
		}
	}
}

func TestResponseWriterAllocs(t *testing.T) {
	w := NewResponseWriter(false)
	body := []byte("body")
	ct := []string{"text/plain"}
	allocs := testing.AllocsPerRun(100, func() {
		w.Reset()
		w.Header()["Content-Type"] = ct
		w.WriteHeader(http.StatusTeapot)
		w.Write(body)
		w.WriteString("more")
	})
	if allocs != 0 {
		t.Errorf("ResponseWriter: %v allocs per request, want 0", allocs)
	}
	if w.Status() != http.StatusTeapot || w.Written() != 8 || len(w.Header()) != 1 {
		t.Errorf("status %d, written %d, %d headers; want 418, 8, 1", w.Status(), w.Written(), len(w.Header()))
	}
}
