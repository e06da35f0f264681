package bench

import (
	"net/http"
	"testing"

	"github.com/plinth-go/plinth/bench/internal/suite"
)

// benchServe serves req with h once, checks the status, then times it: the
// timing loop of the catalogue's benchmarks (mw_*_test.go).
func benchServe(b *testing.B, h http.Handler, req *http.Request, status int) {
	b.Helper()
	w := suite.NewFileWriter()
	h.ServeHTTP(w, req)
	if w.Status() != status {
		b.Fatalf("status %d, want %d", w.Status(), status)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w.Reset()
		h.ServeHTTP(w, req)
	}
}
