package bench

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
)

// One benchmark per scenario, one sub-benchmark per framework, so that
// benchstat compares frameworks as BenchmarkMinimal/plinth vs /std and so on.
// An op serves every request of the scenario once (the whole table for the
// github-* scenarios).

func BenchmarkMinimal(b *testing.B)          { benchScenario(b, Minimal) }
func BenchmarkJSON(b *testing.B)             { benchScenario(b, JSON) }
func BenchmarkRoutes50(b *testing.B)         { benchScenario(b, Routes50) }
func BenchmarkGithubAll(b *testing.B)        { benchScenario(b, GitHubAll) }
func BenchmarkGithubStatic(b *testing.B)     { benchScenario(b, GitHubStatic) }
func BenchmarkGithubParam(b *testing.B)      { benchScenario(b, GitHubParam) }
func BenchmarkNotFound(b *testing.B)         { benchScenario(b, NotFound) }
func BenchmarkMethodNotAllowed(b *testing.B) { benchScenario(b, MethodNotAllowed) }
func BenchmarkMiddleware(b *testing.B)       { benchScenario(b, Middleware) }
func BenchmarkMiddlewareFused(b *testing.B)  { benchScenario(b, MiddlewareFused) }
func BenchmarkDefaultStack(b *testing.B)     { benchScenario(b, DefaultStack) }

func benchScenario(b *testing.B, name string) {
	sc, err := LoadScenario(name)
	if err != nil {
		b.Fatal(err)
	}
	for _, fw := range Frameworks {
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
			cw := NewResponseWriter(true)
			for i, r := range reqs {
				cw.Reset()
				h.ServeHTTP(cw, r)
				if err := sc.Requests[i].Check(cw); err != nil {
					b.Fatalf("%s %s: %v", sc.Name, fw.Name, err)
				}
			}
			w := NewResponseWriter(false)
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
func newRequests(spec []Request) []*http.Request {
	reqs := make([]*http.Request, len(spec))
	for i, rq := range spec {
		reqs[i] = httptest.NewRequest(rq.Method, rq.Path, nil)
	}
	return reqs
}
