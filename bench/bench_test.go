package bench

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/plinth-go/plinth/bench/internal/suite"
)

// One benchmark per scenario, one sub-benchmark per framework, so that
// benchstat compares frameworks as BenchmarkMinimal/plinth vs /std and so on.
// An op serves every request of the scenario once (the whole table for the
// github-* scenarios).

func BenchmarkMinimal(b *testing.B)          { benchScenario(b, suite.Minimal) }
func BenchmarkJSON(b *testing.B)             { benchScenario(b, suite.JSON) }
func BenchmarkRoutes50(b *testing.B)         { benchScenario(b, suite.Routes50) }
func BenchmarkGithubAll(b *testing.B)        { benchScenario(b, suite.GitHubAll) }
func BenchmarkGithubStatic(b *testing.B)     { benchScenario(b, suite.GitHubStatic) }
func BenchmarkGithubParam(b *testing.B)      { benchScenario(b, suite.GitHubParam) }
func BenchmarkNotFound(b *testing.B)         { benchScenario(b, suite.NotFound) }
func BenchmarkMethodNotAllowed(b *testing.B) { benchScenario(b, suite.MethodNotAllowed) }
func BenchmarkMiddleware(b *testing.B)       { benchScenario(b, suite.Middleware) }
func BenchmarkMiddlewareFused(b *testing.B)  { benchScenario(b, suite.MiddlewareFused) }
func BenchmarkDefaultStack(b *testing.B)     { benchScenario(b, suite.DefaultStack) }

func benchScenario(b *testing.B, name string) {
	sc, err := suite.LoadScenario(name)
	if err != nil {
		b.Fatal(err)
	}
	for _, fw := range suite.Frameworks {
		if !fw.Serves(sc) {
			continue
		}
		b.Run(fw.Name, func(b *testing.B) {
			h, err := fw.BuildScenario(sc)
			if err != nil {
				b.Fatal(err)
			}
			reqs := newRequests(sc.Requests)
			// A broken setup must not produce fast-looking numbers: check
			// every response once before timing.
			cw := suite.NewResponseWriter(true)
			for i, r := range reqs {
				cw.Reset()
				h.ServeHTTP(cw, r)
				if err := sc.Requests[i].Check(cw); err != nil {
					b.Fatalf("%s %s: %v", sc.Name, fw.Name, err)
				}
			}
			w := suite.NewResponseWriter(false)
			// Collect the garbage of earlier set-ups (other frameworks'
			// allocations) now, not inside this framework's timed loop:
			// otherwise whoever runs first in a scenario pays for it.
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				for _, r := range reqs {
					w.Reset()
					h.ServeHTTP(w, r)
				}
			}
			b.StopTimer()
			if last := sc.Requests[len(sc.Requests)-1]; w.Status() != last.Status {
				b.Fatalf("%s %s: %s %s: status %d in the timed loop, want %d",
					sc.Name, fw.Name, last.Method, last.Path, w.Status(), last.Status)
			}
		})
	}
}

// newRequests builds the requests of a scenario once; they are reused.
func newRequests(spec []suite.Request) []*http.Request {
	reqs := make([]*http.Request, len(spec))
	for i, rq := range spec {
		reqs[i] = httptest.NewRequest(rq.Method, rq.Path, nil)
	}
	return reqs
}
