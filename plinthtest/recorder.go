package plinthtest

import (
	"bytes"
	"fmt"
	"net/http"
)

// recorder is the http.ResponseWriter of in-process requests: the status,
// the header as it was when the response started (what a client
// receives), and the body.
type recorder struct {
	h     http.Header // the handler's
	sent  http.Header // h when the response started
	code  int
	wrote bool
	buf   *bytes.Buffer
}

func (w *recorder) Header() http.Header { return w.h }

// WriteHeader starts the response (1xx informational statuses other than
// 101 are passed over, as a client that reads the final response does).
func (w *recorder) WriteHeader(code int) {
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code))
	}
	if w.wrote || code < 200 && code != http.StatusSwitchingProtocols {
		return
	}
	w.code, w.wrote = code, true
	w.sent = w.h.Clone()
}

func (w *recorder) start(p []byte) {
	if _, ok := w.h["Content-Type"]; !ok && w.h.Get("Transfer-Encoding") == "" && len(p) > 0 {
		w.h.Set("Content-Type", http.DetectContentType(p)) // as net/http does
	}
	w.WriteHeader(http.StatusOK)
}

func (w *recorder) Write(p []byte) (int, error) {
	if !w.wrote {
		w.start(p)
	}
	return w.buf.Write(p)
}

func (w *recorder) WriteString(s string) (int, error) {
	if !w.wrote {
		n := min(len(s), 512)
		w.start([]byte(s[:n]))
	}
	return w.buf.WriteString(s)
}

// Flush starts the response; the body is already in the buffer.
func (w *recorder) Flush() {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
}

// result returns the status and the header the client receives.
func (w *recorder) result() (int, http.Header) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.code, w.sent
}
