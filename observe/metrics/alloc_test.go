package metrics_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/observe/metrics"
	"github.com/plinth-go/plinth/racetest"
)

// sink is a ResponseWriter that keeps nothing, so that the allocations
// counted are the App's.
type sink struct{ h http.Header }

func (s *sink) Header() http.Header         { return s.h }
func (s *sink) Write(b []byte) (int, error) { return len(b), nil }
func (s *sink) WriteHeader(int)             {}

// benchApp is a Bare or New App with a route that does not touch the
// request, one that does, and a POST that reads its body; measured or not.
func benchApp(defaults, measured bool) *plinth.App {
	app := plinth.Bare()
	if defaults {
		app = plinth.New()
	}
	app.Get("/users/{id}", func(c *plinth.Ctx) error {
		return c.Text(http.StatusOK, c.Param("id"))
	})
	app.Get("/req/{id}", func(c *plinth.Ctx) error {
		_ = c.Request().Header.Get("Accept")
		return c.Text(http.StatusOK, c.Param("id"))
	})
	app.Get("/fail", func(c *plinth.Ctx) error { return plinth.NotFound("no") })
	if measured {
		metrics.New(app, metrics.Config{})
	}
	return app
}

// reqFor returns a request to replay: a GET, or, for "POST", a small body
// that is rewound before each run.
type replay struct {
	r    *http.Request
	body *strings.Reader
}

func newReplay(method, target string) *replay {
	rp := &replay{}
	if method == http.MethodPost {
		rp.body = strings.NewReader(`{"a":1}`)
		rp.r = httptest.NewRequest(method, target, rp.body)
	} else {
		rp.r = httptest.NewRequest(method, target, nil)
	}
	return rp
}

func (rp *replay) serve(h http.Handler, w http.ResponseWriter) {
	if rp.body != nil {
		rp.body.Seek(0, 0)
	}
	h.ServeHTTP(w, rp.r)
}

// TestAllocations compares the allocations per request of an App with and
// without the middleware, on Bare and on New: it adds none, whatever the
// handler does (it reads the method and Content-Length through
// Ctx.RawRequest, which makes no copy).
func TestAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	cases := []struct {
		defaults bool
		target   string
		added    float64
	}{
		{false, "/users/1", 0},
		{false, "/req/1", 0},
		{false, "/fail", 0},
		{false, "/nowhere", 0},
		{true, "/req/1", 0},
		{true, "/users/1", 0},
		{true, "/fail", 0},
		{true, "/nowhere", 0}, // fallbacks run under the timeout too
	}
	for _, tc := range cases {
		name := fmt.Sprintf("defaults=%v %s", tc.defaults, tc.target)
		var allocs [2]float64
		for i, measured := range []bool{false, true} {
			app := benchApp(tc.defaults, measured)
			rp := newReplay(http.MethodGet, tc.target)
			w := &sink{h: http.Header{}}
			rp.serve(app, w) // builds the App and, measured, the table
			allocs[i] = testing.AllocsPerRun(200, func() {
				clear(w.h)
				rp.serve(app, w)
			})
		}
		if d := allocs[1] - allocs[0]; d != tc.added {
			t.Errorf("%s: %g allocations per request without metrics, %g with: %g added, want %g", name, allocs[0], allocs[1], d, tc.added)
		} else {
			t.Logf("%s: %g allocations without metrics, %g with", name, allocs[0], allocs[1])
		}
	}
}

// BenchmarkMiddleware measures a request with and without the metrics
// middleware, on a Bare App and on New's:
//
//	go test -run '^$' -bench Middleware -benchmem -benchtime=200ms
func BenchmarkMiddleware(b *testing.B) {
	for _, defaults := range []bool{false, true} {
		for _, target := range []string{"/users/1", "/req/1"} {
			for _, measured := range []bool{false, true} {
				name := fmt.Sprintf("app=%s/route=%s/metrics=%v", map[bool]string{false: "Bare", true: "New"}[defaults], strings.Split(target, "/")[1], measured)
				b.Run(name, func(b *testing.B) {
					app := benchApp(defaults, measured)
					rp := newReplay(http.MethodGet, target)
					w := &sink{h: http.Header{}}
					rp.serve(app, w)
					b.ReportAllocs()
					for b.Loop() {
						clear(w.h)
						rp.serve(app, w)
					}
				})
			}
		}
	}
}

// BenchmarkMiddlewareParallel is the same request from every P: the
// series are shared, so this shows contention on their atomics.
func BenchmarkMiddlewareParallel(b *testing.B) {
	for _, measured := range []bool{false, true} {
		b.Run(fmt.Sprintf("metrics=%v", measured), func(b *testing.B) {
			app := benchApp(true, measured)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				rp := newReplay(http.MethodGet, "/req/1")
				w := &sink{h: http.Header{}}
				for pb.Next() {
					clear(w.h)
					rp.serve(app, w)
				}
			})
		})
	}
}
