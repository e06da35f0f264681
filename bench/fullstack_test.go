package bench

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/plinth-go/plinth/bench/internal/fullstack"
	"github.com/plinth-go/plinth/bench/internal/suite"
)

// The full production stack (package fullstack): GET /accounts/42 with
// Accept-Encoding: gzip behind request ID, access log, Prometheus, 10%-sampled
// OpenTelemetry tracing, gzip and a concurrency limit, on each framework.
//
//	go test -run '^$' -bench FullStack -benchmem -count=5 -benchtime=300ms .
func BenchmarkFullStack(b *testing.B) {
	for _, name := range fullstack.Names {
		b.Run(name, func(b *testing.B) {
			st, err := fullstack.Build(name)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Shutdown(context.Background())
			req := newFullStackRequest()
			// Check one response before timing: a broken stack must not
			// produce fast-looking numbers.
			cw := getRecorder(true)
			st.Handler.ServeHTTP(cw, req)
			if err := checkFullStack(cw); err != nil {
				b.Fatalf("%s: %v", name, err)
			}
			putRecorder(cw)
			w := getRecorder(false)
			defer putRecorder(w)
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				// gin-contrib/requestid adds the ID it makes to the request's
				// own header: without this, a reused request would carry the
				// first one and skip the generation.
				delete(req.Header, suite.RequestIDHeader)
				w.Reset()
				st.Handler.ServeHTTP(w, req)
			}
			b.StopTimer()
			if w.Status() != http.StatusOK || w.Header().Get("Content-Encoding") != "gzip" {
				b.Fatalf("%s: status %d, Content-Encoding %q in the timed loop, want 200 and gzip",
					name, w.Status(), w.Header().Get("Content-Encoding"))
			}
		})
	}
}

// TestFullStack checks that every stack answers 200 with a gzip body that
// decodes to the account's JSON, a fresh X-Request-Id per request, that
// Prometheus recorded the requests in a histogram and that tracing sampled
// (and exported) some of them.
func TestFullStack(t *testing.T) {
	const requests = 200
	for _, name := range fullstack.Names {
		t.Run(name, func(t *testing.T) {
			st, err := fullstack.Build(name)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Shutdown(context.Background())
			ids := map[string]bool{}
			for range requests {
				w := getRecorder(true)
				st.Handler.ServeHTTP(w, newFullStackRequest())
				if err := checkFullStack(w); err != nil {
					t.Fatal(err)
				}
				ids[w.Header().Get(suite.RequestIDHeader)] = true
				putRecorder(w)
			}
			if len(ids) != requests {
				t.Errorf("%d distinct request IDs for %d requests", len(ids), requests)
			}
			// Without Accept-Encoding: the same JSON, not compressed.
			w := suite.NewResponseWriter(true)
			st.Handler.ServeHTTP(w, httptest.NewRequest(http.MethodGet, fullstack.Path, nil))
			if ce := w.Header().Get("Content-Encoding"); w.Status() != 200 || ce != "" || !sameJSON(w.Body) {
				t.Errorf("without Accept-Encoding: status %d, Content-Encoding %q, body %q", w.Status(), ce, w.Body)
			}

			if n := histogramCount(t, st); n < requests {
				t.Errorf("Prometheus: %d observations in request-duration histograms, want at least %d", n, requests)
			}
			if err := st.Tracer.ForceFlush(context.Background()); err != nil {
				t.Fatal(err)
			}
			// 10% of 201 root spans: none at all has a chance of 6e-10.
			if n := st.Exporter.Spans(); n == 0 || n > requests/2 {
				t.Errorf("tracing: %d spans exported for %d requests sampled at %.0f%%", n, requests+1, 100*fullstack.SampleRatio)
			}
		})
	}
}

func newFullStackRequest() *http.Request {
	r := httptest.NewRequest(http.MethodGet, fullstack.Path, nil)
	for _, h := range fullstack.RequestHeaders {
		r.Header.Set(h[0], h[1])
	}
	return r
}

// checkFullStack checks a captured response of the stack.
func checkFullStack(w *gzipRecorder) error {
	if w.Status() != http.StatusOK {
		return fmt.Errorf("status %d, want 200", w.Status())
	}
	if ce := w.Header().Get("Content-Encoding"); ce != "gzip" {
		return fmt.Errorf("Content-Encoding %q, want gzip", ce)
	}
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("Content-Type %q, want application/json", ct)
	}
	if w.Header().Get(suite.RequestIDHeader) == "" {
		return fmt.Errorf("no %s", suite.RequestIDHeader)
	}
	body, err := w.Decoded()
	if err != nil {
		return fmt.Errorf("gzip body: %v", err)
	}
	if !sameJSON(body) {
		return fmt.Errorf("body %q, want the account's JSON", body)
	}
	return nil
}

// sameJSON reports whether body is the account of fullstack.ID as JSON (a
// trailing newline aside).
func sameJSON(body []byte) bool {
	want, _ := json.Marshal(suite.NewAccount(fullstack.ID))
	return bytes.Equal(bytes.TrimSuffix(body, []byte("\n")), want)
}

// histogramCount adds up the sample counts of every histogram in the
// stack's registry.
func histogramCount(t *testing.T, st *fullstack.Stack) uint64 {
	t.Helper()
	mfs, err := st.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			if h := m.GetHistogram(); h != nil {
				n += h.GetSampleCount()
			}
		}
	}
	return n
}

// gzipRecorder is the suite's reusable writer with what net/http's writer
// also has (Flush) and a pooled gzip reader to decode a captured body.
type gzipRecorder struct {
	*suite.ResponseWriter
	zr    *gzip.Reader
	plain bytes.Buffer
}

var recorders = sync.Pool{New: func() any { return &gzipRecorder{ResponseWriter: suite.NewResponseWriter(false)} }}

// getRecorder takes a reset recorder from the pool; capture keeps the body.
func getRecorder(capture bool) *gzipRecorder {
	w := recorders.Get().(*gzipRecorder)
	w.Reset()
	w.Capture = capture
	return w
}

func putRecorder(w *gzipRecorder) { recorders.Put(w) }

// Flush does nothing: the body is already where it goes.
func (w *gzipRecorder) Flush() {}

// Decoded gunzips the captured body (or returns it as it is when the
// response is not gzip-encoded).
func (w *gzipRecorder) Decoded() ([]byte, error) {
	if w.Header().Get("Content-Encoding") != "gzip" {
		return w.Body, nil
	}
	var err error
	if w.zr == nil {
		w.zr, err = gzip.NewReader(bytes.NewReader(w.Body))
	} else {
		err = w.zr.Reset(bytes.NewReader(w.Body))
	}
	if err != nil {
		return nil, err
	}
	w.plain.Reset()
	if _, err := io.Copy(&w.plain, w.zr); err != nil {
		return nil, err
	}
	return w.plain.Bytes(), w.zr.Close()
}
