package api_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkBind measures the 5-field validated POST of alloc_test.go through
// a typed operation, a native handler with a Binder, and a native handler
// with Bind[T] (its per-type cache look-up included):
//
//	go test ./api -run '^$' -bench Bind -benchtime 200ms -count 6
func BenchmarkBind(b *testing.B) {
	app := allocApp(false)
	for _, bc := range []struct{ name, path string }{
		{"operation", "/users"},
		{"Binder", "/native/users"},
		{"BindT", "/native/generic"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			w := &resettableRecorder{h: http.Header{}}
			body := strings.NewReader(userJSON)
			req := httptest.NewRequest("POST", bc.path, body)
			req.Header.Set("Content-Type", "application/json")
			app.ServeHTTP(w, req)
			if w.code != http.StatusCreated {
				b.Fatalf("%s: status %d", bc.path, w.code)
			}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				body.Reset(userJSON)
				app.ServeHTTP(w, req)
			}
		})
	}
}

// BenchmarkBindParams measures a typed GET that binds and validates a path
// parameter, two query parameters (one from its default), a header and a
// cookie, and writes a response with a header: the parameter binders, the
// validator's fast pass and the output writer.
//
//	go test ./api -run '^$' -bench BindParams -benchtime 200ms -count 6
func BenchmarkBindParams(b *testing.B) {
	app := paramsApp()
	w := &resettableRecorder{h: http.Header{}}
	req := httptest.NewRequest("GET", "/things/42?sort=asc", nil)
	req.Header.Set("X-Trace", "abc123")
	req.Header.Set("Cookie", "sid=s3")
	app.ServeHTTP(w, req)
	if w.code != http.StatusOK {
		b.Fatalf("status %d", w.code)
	}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		app.ServeHTTP(w, req)
	}
}
