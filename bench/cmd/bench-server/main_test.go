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
