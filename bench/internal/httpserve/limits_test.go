package httpserve

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestLimitBody(t *testing.T) {
	h := LimitBody(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}), 10)
	for _, tt := range []struct {
		name   string
		req    *http.Request
		status int
	}{
		{"no body", httptest.NewRequest("GET", "/", nil), 204},
		{"small body", httptest.NewRequest("POST", "/", strings.NewReader("0123456789")), 204},
		{"declared too large", httptest.NewRequest("POST", "/", strings.NewReader("0123456789A")), 413},
		{"chunked too large", func() *http.Request {
			r := httptest.NewRequest("POST", "/", io.NopCloser(strings.NewReader("0123456789AB")))
			r.ContentLength = -1
			return r
		}(), 413},
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, tt.req)
		if w.Code != tt.status {
			t.Errorf("%s: status %d, want %d", tt.name, w.Code, tt.status)
		}
	}
}

func TestNewLimitedServer(t *testing.T) {
	srv := NewLimitedServer(http.NotFoundHandler())
	if srv.ReadHeaderTimeout != LimitHeaderTimeout || srv.IdleTimeout != LimitIdleTimeout || srv.MaxHeaderBytes != LimitHeaderBytes {
		t.Errorf("limits %v %v %d", srv.ReadHeaderTimeout, srv.IdleTimeout, srv.MaxHeaderBytes)
	}
}

// TestLimitListener: past the cap a connection gets a 503 at once, and a
// closed connection frees its slot (once, however often it is closed).
func TestLimitListener(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &capListener{Listener: inner, max: 1}
	defer ln.Close()
	accepted := make(chan net.Conn, 2)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	c1, err := net.Dial("tcp", inner.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	s1 := <-accepted
	c2, err := net.Dial("tcp", inner.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c2), nil)
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("second connection: %v, %v; want a 503", resp, err)
	}
	c2.Close()
	s1.Close()
	s1.Close()
	if n := ln.open.Load(); n != 0 {
		t.Fatalf("%d open after closing, want 0", n)
	}
	c3, err := net.Dial("tcp", inner.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close()
	(<-accepted).Close()
}
