package bench

import (
	"net/http"
	"net/http/httptest"
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
			if !fw.Serves(sc) {
				continue
			}
			t.Run(name+"/"+fw.Name, func(t *testing.T) {
				h, err := fw.BuildScenario(sc)
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

// TestMiddlewareHeaders checks that every framework's middleware stack gives
// the same response headers: the four security headers and a request ID, a
// fresh one per request, or the client's own when it sends a sane one.
func TestMiddlewareHeaders(t *testing.T) {
	for _, name := range []string{Middleware, MiddlewareFused} {
		sc, err := LoadScenario(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, fw := range Frameworks {
			if !fw.Serves(sc) {
				t.Logf("%s: %s skipped (not served)", name, fw.Name)
				continue
			}
			t.Run(name+"/"+fw.Name, func(t *testing.T) {
				h, err := fw.BuildScenario(sc)
				if err != nil {
					t.Fatal(err)
				}
				want := securedHeaders()
				if len(want) != 5 {
					t.Fatalf("securedHeaders has %d headers, want 5", len(want))
				}
				rq := sc.Requests[0]
				ids := map[string]bool{}
				for range 3 {
					w := NewResponseWriter(true)
					h.ServeHTTP(w, httptest.NewRequest(rq.Method, rq.Path, nil))
					if err := rq.Check(w); err != nil {
						t.Fatal(err)
					}
					ids[w.Header().Get(RequestIDHeader)] = true
				}
				if len(ids) != 3 {
					t.Errorf("request IDs %v: want a new one per request", ids)
				}
				w := NewResponseWriter(true)
				r := httptest.NewRequest(rq.Method, rq.Path, nil)
				r.Header.Set(RequestIDHeader, "client-id-1")
				h.ServeHTTP(w, r)
				if got := w.Header().Get(RequestIDHeader); got != "client-id-1" {
					t.Errorf("incoming request ID: echoed %q, want client-id-1", got)
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
