package main

import (
	"io"
	"net/http/httptest"
	"testing"

	"github.com/plinth-go/plinth/bench/internal/httpserve"
	"github.com/plinth-go/plinth/bench/internal/suite"
)

// httpScenarios are the scenarios run-http.sh serves.
var httpScenarios = []string{suite.Minimal, suite.JSON, suite.Routes50, suite.Middleware, suite.MiddlewareFused, suite.DefaultStack}

// TestFrameworks checks that every framework bench-server knows answers
// every request of the real-HTTP scenarios as the scenario expects,
// including the middleware scenarios' headers (fiber through its own test
// harness, the others as handlers).
func TestFrameworks(t *testing.T) {
	for _, name := range httpScenarios {
		sc, err := suite.LoadScenario(name)
		if err != nil {
			t.Fatal(err)
		}
		spec := append(append([]suite.Request(nil), sc.Requests...), sc.Checks...)
		for _, fw := range Names {
			t.Run(name+"/"+fw, func(t *testing.T) {
				if fw == "fiber" {
					app, err := newFiber(sc)
					if err != nil {
						t.Fatal(err)
					}
					for _, rq := range spec {
						resp, err := app.Test(httptest.NewRequest(rq.Method, rq.Path, nil), -1)
						if err != nil {
							t.Fatal(err)
						}
						body, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						if err := rq.CheckResponse(resp.StatusCode, resp.Header, body); err != nil {
							t.Error(err)
						}
					}
					return
				}
				h, err := httpserve.Handler(fw, sc)
				if err != nil {
					t.Fatal(err)
				}
				if httpserve.Limited(fw) {
					h = httpserve.NewLimitedServer(h).Handler
				}
				for _, rq := range spec {
					w := httptest.NewRecorder()
					h.ServeHTTP(w, httptest.NewRequest(rq.Method, rq.Path, nil))
					if err := rq.CheckResponse(w.Code, w.Header(), w.Body.Bytes()); err != nil {
						t.Error(err)
					}
				}
			})
		}
	}
}

func TestUnknownFramework(t *testing.T) {
	sc, _ := suite.LoadScenario(suite.Minimal)
	if _, err := httpserve.Handler("nope", sc); err == nil {
		t.Fatal("no error for an unknown framework")
	}
}

// TestFullStackServed checks the fullstack scenario as bench-server serves
// it: the path and headers the load generators are told, and a gzip 200
// with a request ID from each of its frameworks.
func TestFullStackServed(t *testing.T) {
	path, err := httpserve.RequestPath(httpserve.FullStack)
	if err != nil || path != "/accounts/42" {
		t.Fatalf("RequestPath: %q, %v", path, err)
	}
	hdrs := httpserve.RequestHeaders(httpserve.FullStack)
	if len(hdrs) != 1 || hdrs[0] != "Accept-Encoding: gzip" {
		t.Fatalf("RequestHeaders: %q, want [Accept-Encoding: gzip]", hdrs)
	}
	for _, fw := range []string{"plinth-new", "chi", "gin", "echo"} {
		h, err := httpserve.HandlerNamed(fw, httpserve.FullStack)
		if err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("Accept-Encoding", "gzip")
		h.ServeHTTP(w, r)
		if w.Code != 200 || w.Header().Get("Content-Encoding") != "gzip" || w.Header().Get(suite.RequestIDHeader) == "" {
			t.Errorf("%s: status %d, headers %v", fw, w.Code, w.Header())
		}
	}
	if _, err := httpserve.HandlerNamed("std", httpserve.FullStack); err == nil {
		t.Error("std: no error for a framework the scenario has no stack for")
	}
}
