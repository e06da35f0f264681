package main

import (
	"bytes"
	"context"
	"github.com/plinth-go/plinth/ws/wstest"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// serveApp runs the example's App on a real listener until the test ends.
func serveApp(t *testing.T) string {
	t.Helper()
	app := newApp()
	app.Config.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	app.Logger = app.Config.Logger
	app.Config.ShutdownTimeout = 5 * time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Error("Serve did not return")
		}
	})
	return ln.Addr().String()
}

func TestWebSocketEcho(t *testing.T) {
	t.Parallel()
	addr := serveApp(t)
	c := wstest.Dial(t, addr, "/ws", "Origin: http://"+addr)
	c.Send(0x1, []byte("hello"))
	if op, p := c.Message(); op != 0x1 || string(p) != "hello" {
		t.Errorf("text: op %d %q", op, p)
	}
	c.Send(0x2, []byte{0, 1, 2, 0xff})
	if op, p := c.Message(); op != 0x2 || !bytes.Equal(p, []byte{0, 1, 2, 0xff}) {
		t.Errorf("binary: op %d %v", op, p)
	}
	c.Frame(false, 0, 0x1, []byte("frag"), true)
	c.Frame(false, 0, 0x0, []byte("men"), true)
	c.Frame(true, 0, 0x0, []byte("ted"), true)
	if op, p := c.Message(); op != 0x1 || string(p) != "fragmented" {
		t.Errorf("fragmented: op %d %q", op, p)
	}
	big := bytes.Repeat([]byte{7}, 64<<10)
	c.Send(0x2, big)
	if op, p := c.Message(); op != 0x2 || !bytes.Equal(p, big) {
		t.Errorf("64 KiB: op %d, %d bytes", op, len(p))
	}
	c.Send(0x9, []byte("same payload"))
	if op, p := c.Message(); op != 0xA || string(p) != "same payload" {
		t.Errorf("ping: answered op %d %q", op, p)
	}
	c.Send(0x2, make([]byte, 64<<10+1))
	if code := c.ExpectClose(); code != 1009 {
		t.Errorf("64 KiB + 1: close %d, want 1009", code)
	}
}

func TestWebSocketCrossOrigin(t *testing.T) {
	t.Parallel()
	addr := serveApp(t)
	_, res := wstest.TryDial(t, addr, "/ws", "Origin: https://elsewhere.example")
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin: status %d, want 403", res.StatusCode)
	}
	if res.Header.Get("Sec-WebSocket-Accept") != "" {
		t.Error("cross-origin answer carries Sec-WebSocket-Accept")
	}
}

func TestPageNonce(t *testing.T) {
	t.Parallel()
	addr := serveApp(t)
	res, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := regexp.MustCompile(`'nonce-([^']+)'`).FindStringSubmatch(res.Header.Get("Content-Security-Policy"))
	if m == nil {
		t.Fatalf("CSP %q has no nonce", res.Header.Get("Content-Security-Policy"))
	}
	attr := regexp.MustCompile(`<script nonce="([^"]+)">`).FindSubmatch(body)
	// html/template escapes base64's "+" as "&#43;", which the browser reads back.
	if attr == nil || strings.ReplaceAll(string(attr[1]), "&#43;", "+") != m[1] {
		t.Errorf("the inline script does not carry the header's nonce %q", m[1])
	}
	for _, want := range []string{"new EventSource(\"/events\")", "new WebSocket("} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("page lacks %s", want)
		}
	}
}
