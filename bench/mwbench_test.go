package bench

import (
	"io"
	"net/http"
	"testing"
)

// fileWriter is the benchmark writer with io.ReaderFrom, as net/http's own
// writer has: without it, every file copy would allocate a 32 KiB buffer
// that no real server allocates.
type fileWriter struct{ *ResponseWriter }

func (w fileWriter) ReadFrom(r io.Reader) (int64, error) {
	w.WriteHeader(http.StatusOK)
	n, err := io.Copy(io.Discard, r)
	w.written += int(n)
	return n, err
}

// benchServe serves req with h once, checks the status, then times it: the
// timing loop of the catalogue's benchmarks (mw_*_test.go).
func benchServe(b *testing.B, h http.Handler, req *http.Request, status int) {
	b.Helper()
	w := fileWriter{NewResponseWriter(false)}
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
