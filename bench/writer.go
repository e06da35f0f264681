package bench

import (
	"fmt"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"
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

// Check reports how the response in w (written with Capture set) differs
// from what rq expects, or nil.
func (rq Request) Check(w *ResponseWriter) error {
	return rq.CheckResponse(w.Status(), w.Header(), w.Body)
}

// CheckResponse reports how a response differs from what rq expects, or nil.
func (rq Request) CheckResponse(status int, header http.Header, body []byte) error {
	var errs []string
	if status != rq.Status {
		errs = append(errs, fmt.Sprintf("status %d, want %d", status, rq.Status))
	}
	if rq.Body != "" {
		if got := strings.TrimSuffix(string(body), "\n"); got != rq.Body {
			errs = append(errs, fmt.Sprintf("body %q, want %q", got, rq.Body))
		}
	}
	if rq.ContentType != "" {
		ct := header.Get("Content-Type")
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || !strings.EqualFold(mt, rq.ContentType) {
			errs = append(errs, fmt.Sprintf("Content-Type %q, want %s", ct, rq.ContentType))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(rq.Headers)) {
		want, got := rq.Headers[k], header.Values(k)
		switch {
		case len(got) != 1:
			errs = append(errs, fmt.Sprintf("%d %s headers %q, want one", len(got), k, got))
		case want == AnyValue && got[0] == "", want != AnyValue && got[0] != want:
			errs = append(errs, fmt.Sprintf("%s %q, want %q", k, got[0], want))
		}
	}
	if errs == nil {
		return nil
	}
	return fmt.Errorf("%s %s: %s", rq.Method, rq.Path, strings.Join(errs, "; "))
}
