package suite

import (
	"net/http"
	"strings"
	"testing"
)

func TestResponseWriterAllocs(t *testing.T) {
	w := NewResponseWriter(false)
	body := []byte("body")
	ct := []string{"text/plain"}
	allocs := testing.AllocsPerRun(100, func() {
		w.Reset()
		w.Header()["Content-Type"] = ct
		w.WriteHeader(http.StatusTeapot)
		w.Write(body)
		w.WriteString("more")
	})
	if allocs != 0 {
		t.Errorf("ResponseWriter: %v allocs per request, want 0", allocs)
	}
	if w.Status() != http.StatusTeapot || w.Written() != 8 || len(w.Header()) != 1 {
		t.Errorf("status %d, written %d, %d headers; want 418, 8, 1", w.Status(), w.Written(), len(w.Header()))
	}
}

// TestFileWriter: a file copied through ReadFrom counts as written and
// allocates nothing.
func TestFileWriter(t *testing.T) {
	w := NewFileWriter()
	r := strings.NewReader("")
	allocs := testing.AllocsPerRun(100, func() {
		w.Reset()
		r.Reset("0123456789")
		if n, err := w.ReadFrom(r); n != 10 || err != nil {
			t.Fatalf("ReadFrom: %d, %v; want 10, nil", n, err)
		}
	})
	if allocs != 0 {
		t.Errorf("FileWriter.ReadFrom: %v allocs, want 0", allocs)
	}
	if w.Status() != http.StatusOK || w.Written() != 10 {
		t.Errorf("status %d, written %d; want 200, 10", w.Status(), w.Written())
	}
}
