package ws_test

import (
	"bytes"
	"github.com/plinth-go/plinth/ws/wstest"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/middleware/compress"
	"github.com/plinth-go/plinth/ws"
)

// syncBuffer is a bytes.Buffer safe for a server's logger and the test
// reading it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The access log, compress and ETag in front of an upgrade: the handshake
// goes through untouched (no Content-Encoding, no ETag), frames are not
// buffered, and the access log records the 101.
func TestMiddlewareInFront(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	app := plinth.New()
	app.Use(middleware.AccessLog(middleware.AccessLogConfig{Logger: slog.New(slog.NewTextHandler(&logs, nil))}))
	app.Use(compress.New(compress.Config{}))
	app.Use(middleware.ETag(middleware.ETagConfig{}))
	app.Get("/ws", echo(ws.Config{}))
	s := serve(t, app)

	c, res := wstest.TryDial(t, s.addr, "/ws", "Accept-Encoding: gzip, br, zstd", "If-None-Match: *")
	if res.StatusCode != 101 {
		t.Fatalf("status %d, want 101", res.StatusCode)
	}
	for _, h := range []string{"Content-Encoding", "ETag", "Vary"} {
		if v := res.Header.Get(h); v != "" && (h != "Vary" || strings.Contains(v, "Accept-Encoding")) {
			t.Errorf("upgrade answer carries %s: %q", h, v)
		}
	}
	for _, msg := range []string{"one", "two", strings.Repeat("compressible text ", 100)} {
		c.Send(0x1, []byte(msg))
		if op, p := c.Message(); op != 0x1 || string(p) != msg {
			t.Fatalf("echo through the middleware: op %d, %d bytes", op, len(p))
		}
	}
	c.CloseReply(1000)
	c.ExpectClose()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), "status=101") {
		if time.Now().After(deadline) {
			t.Fatalf("access log has no status=101:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
