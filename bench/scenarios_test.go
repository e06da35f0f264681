package bench

import (
	"net/http/httptest"
	"testing"

	"github.com/plinth-go/plinth/bench/internal/suite"
)

// TestScenarios checks that every framework answers every request of every
// scenario (and its extra checks) with the expected status, body and
// Content-Type, twice through the same reused request and writer, as the
// benchmarks do.
func TestScenarios(t *testing.T) {
	for _, name := range suite.ScenarioNames {
		sc, err := suite.LoadScenario(name)
		if err != nil {
			t.Fatal(err)
		}
		spec := append(append([]suite.Request(nil), sc.Requests...), sc.Checks...)
		for _, fw := range suite.Frameworks {
			if !fw.Serves(sc) {
				continue
			}
			t.Run(name+"/"+fw.Name, func(t *testing.T) {
				h, err := fw.BuildScenario(sc)
				if err != nil {
					t.Fatal(err)
				}
				w := suite.NewResponseWriter(true)
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
	for _, name := range []string{suite.Middleware, suite.MiddlewareFused} {
		sc, err := suite.LoadScenario(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, fw := range suite.Frameworks {
			if !fw.Serves(sc) {
				t.Logf("%s: %s skipped (not served)", name, fw.Name)
				continue
			}
			t.Run(name+"/"+fw.Name, func(t *testing.T) {
				h, err := fw.BuildScenario(sc)
				if err != nil {
					t.Fatal(err)
				}
				rq := sc.Requests[0]
				if len(rq.Headers) != 5 {
					t.Fatalf("the request expects %d headers, want 5 (four security headers and %s)", len(rq.Headers), suite.RequestIDHeader)
				}
				ids := map[string]bool{}
				for range 3 {
					w := suite.NewResponseWriter(true)
					h.ServeHTTP(w, httptest.NewRequest(rq.Method, rq.Path, nil))
					if err := rq.Check(w); err != nil {
						t.Fatal(err)
					}
					ids[w.Header().Get(suite.RequestIDHeader)] = true
				}
				if len(ids) != 3 {
					t.Errorf("request IDs %v: want a new one per request", ids)
				}
				w := suite.NewResponseWriter(true)
				r := httptest.NewRequest(rq.Method, rq.Path, nil)
				r.Header.Set(suite.RequestIDHeader, "client-id-1")
				h.ServeHTTP(w, r)
				if got := w.Header().Get(suite.RequestIDHeader); got != "client-id-1" {
					t.Errorf("incoming request ID: echoed %q, want client-id-1", got)
				}
			})
		}
	}
}

func TestGitHubTable(t *testing.T) {
	routes, err := suite.LoadGitHubRoutes(suite.GitHubRoutesFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(routes) != suite.GitHubRouteCount {
		t.Errorf("%s: %d routes, want %d", suite.GitHubRoutesFile, len(routes), suite.GitHubRouteCount)
	}
	counts := map[string]int{}
	for _, name := range []string{suite.GitHubAll, suite.GitHubStatic, suite.GitHubParam} {
		sc, err := suite.LoadScenario(name)
		if err != nil {
			t.Fatal(err)
		}
		counts[name] = len(sc.Requests)
	}
	if counts[suite.GitHubAll] != len(routes) || counts[suite.GitHubStatic]+counts[suite.GitHubParam] != len(routes) ||
		counts[suite.GitHubStatic] == 0 || counts[suite.GitHubParam] == 0 {
		t.Errorf("request counts %v do not split the %d routes", counts, len(routes))
	}
	// Requests must be distinct, or one route could hide another.
	seen := map[string]bool{}
	for _, rt := range routes {
		key := rt.Method + " " + suite.RequestPath(rt.Path)
		if seen[key] {
			t.Errorf("two routes share the request %s", key)
		}
		seen[key] = true
	}
}
