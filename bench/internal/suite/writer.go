package suite

import (
	"io"
	"net/http"
)

// ResponseWriter is a reusable http.ResponseWriter that allocates nothing per
// request: Reset deletes the header keys but keeps the map, Write discards the
// body unless Capture is set, WriteHeader records the first status.
type ResponseWriter struct {
	header  http.Header
	status  int
	written int
	// Capture keeps the body in Body (for checks, not for timing).
	Capture bool
	Body    []byte
}

// NewResponseWriter returns an empty writer.
func NewResponseWriter(capture bool) *ResponseWriter {
	return &ResponseWriter{header: make(http.Header, 8), Capture: capture}
}

// Header returns the response header map, reused across requests.
func (w *ResponseWriter) Header() http.Header { return w.header }

// WriteHeader records code if no status was recorded yet.
func (w *ResponseWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

// Write counts p, keeping it only when Capture is set.
func (w *ResponseWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.written += len(p)
	if w.Capture {
		w.Body = append(w.Body, p...)
	}
	return len(p), nil
}

// WriteString is Write for a string, without converting it (net/http's own
// writer has it too, and io.WriteString and several frameworks use it).
func (w *ResponseWriter) WriteString(s string) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.written += len(s)
	if w.Capture {
		w.Body = append(w.Body, s...)
	}
	return len(s), nil
}

// Status is the recorded status: 200 when the handler set none, as net/http.
func (w *ResponseWriter) Status() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// Written is the number of body bytes written since Reset.
func (w *ResponseWriter) Written() int { return w.written }

// Reset makes the writer ready for the next request without allocating.
func (w *ResponseWriter) Reset() {
	clear(w.header) // deletes every key, keeps the map's storage
	w.status = 0
	w.written = 0
	w.Body = w.Body[:0]
}

// FileWriter is a ResponseWriter with io.ReaderFrom, as net/http's own writer
// has: without it, every file copy would allocate a 32 KiB buffer that no real
// server allocates (the catalogue's static-file benchmarks use it).
type FileWriter struct{ *ResponseWriter }

// NewFileWriter returns an empty FileWriter that discards the body.
func NewFileWriter() FileWriter { return FileWriter{NewResponseWriter(false)} }

// ReadFrom counts and discards r's bytes without a buffer of its own.
func (w FileWriter) ReadFrom(r io.Reader) (int64, error) {
	w.WriteHeader(http.StatusOK)
	n, err := io.Copy(io.Discard, r)
	w.written += int(n)
	return n, err
}
