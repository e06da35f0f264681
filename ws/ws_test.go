package ws_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"github.com/plinth-go/plinth/ws/wstest"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/ws"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// echo is the echo handler of the tests, accepting with cfg.
func echo(cfg ws.Config) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		conn, err := ws.Accept(c, cfg)
		if err != nil {
			return err
		}
		defer conn.CloseNow()
		ctx := c.Context() // the handler timeout must not end it
		for {
			typ, msg, err := conn.Read(ctx)
			if err != nil {
				return nil
			}
			if err := conn.Write(ctx, typ, msg); err != nil {
				return nil
			}
		}
	}
}

type server struct {
	addr   string
	cancel context.CancelFunc
	done   chan error
}

// serve runs app on a real listener until the test ends (or cancel).
func serve(t *testing.T, app *plinth.App) *server {
	t.Helper()
	if app.Config.Logger == nil {
		app.Config.Logger = quiet()
	}
	if app.Logger == nil {
		app.Logger = quiet()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{addr: ln.Addr().String(), cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- app.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(15 * time.Second):
			t.Error("Serve did not return")
		}
	})
	return s
}

func newApp(cfg ws.Config) *plinth.App {
	app := plinth.New()
	app.Config.ShutdownTimeout = 5 * time.Second
	app.Get("/ws", echo(cfg))
	app.Post("/ws", echo(cfg))
	return app
}

// The rows of the bad-input table answered before any upgrade.
func TestHandshakeRefusals(t *testing.T) {
	t.Parallel()
	app := newApp(ws.Config{OriginPatterns: []string{"*.trusted.example"}})
	key := wstest.HandshakeKey()
	good := func() http.Header {
		return http.Header{
			"Connection": {"keep-alive, Upgrade"}, "Upgrade": {"websocket"},
			"Sec-Websocket-Version": {"13"}, "Sec-Websocket-Key": {key},
		}
	}
	cases := []struct {
		name   string
		method string
		proto  int // minor version of HTTP/1
		edit   func(h http.Header)
		status int
		header string // a header the answer must carry
	}{
		{"cross-origin", "GET", 1, func(h http.Header) { h.Set("Origin", "https://evil.example") }, 403, ""},
		{"no Connection: Upgrade", "GET", 1, func(h http.Header) { h.Set("Connection", "keep-alive") }, 426, "Upgrade"},
		{"no Upgrade: websocket", "GET", 1, func(h http.Header) { h.Set("Upgrade", "h2c") }, 426, "Upgrade"},
		{"no Upgrade header", "GET", 1, func(h http.Header) { h.Del("Upgrade") }, 426, "Upgrade"},
		{"HTTP/1.0", "GET", 0, func(http.Header) {}, 426, "Upgrade"},
		{"POST", "POST", 1, func(http.Header) {}, 405, "Allow"},
		{"version 8", "GET", 1, func(h http.Header) { h.Set("Sec-WebSocket-Version", "8") }, 400, "Sec-Websocket-Version"},
		{"no version", "GET", 1, func(h http.Header) { h.Del("Sec-WebSocket-Version") }, 400, "Sec-Websocket-Version"},
		{"no key", "GET", 1, func(h http.Header) { h.Del("Sec-WebSocket-Key") }, 400, ""},
		{"two keys", "GET", 1, func(h http.Header) { h.Add("Sec-WebSocket-Key", wstest.HandshakeKey()) }, 400, ""},
		{"key not base64", "GET", 1, func(h http.Header) { h.Set("Sec-WebSocket-Key", "not base64 at all, 24 ch") }, 400, ""},
		{"key of 15 bytes", "GET", 1, func(h http.Header) { h.Set("Sec-WebSocket-Key", "AAAAAAAAAAAAAAAAAAAA") }, 400, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, "http://app.example/ws", nil)
			r.ProtoMinor = tc.proto
			r.Proto = "HTTP/1." + string(rune('0'+tc.proto))
			r.Header = good()
			tc.edit(r.Header)
			w := httptest.NewRecorder()
			app.ServeHTTP(w, r)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d; body %s", w.Code, tc.status, w.Body)
			}
			if ct := w.Header().Get("Content-Type"); !strings.Contains(ct, "problem+json") {
				t.Errorf("Content-Type %q, want a problem from the renderer", ct)
			}
			if tc.header != "" && w.Header().Get(tc.header) == "" {
				t.Errorf("no %s header in the answer", tc.header)
			}
			if w.Header().Get("Sec-WebSocket-Accept") != "" {
				t.Error("refused request carries Sec-WebSocket-Accept")
			}
		})
	}
}

// Same-origin is allowed by default, OriginPatterns widen it, a request
// without Origin (not a browser) is allowed.
func TestOrigins(t *testing.T) {
	t.Parallel()
	app := newApp(ws.Config{OriginPatterns: []string{"*.trusted.example"}})
	s := serve(t, app)
	for _, origin := range []string{"", "http://" + s.addr, "https://app.trusted.example"} {
		var extra []string
		if origin != "" {
			extra = append(extra, "Origin: "+origin)
		}
		_, res := wstest.TryDial(t, s.addr, "/ws", extra...)
		if res.StatusCode != 101 {
			t.Errorf("Origin %q: status %d, want 101", origin, res.StatusCode)
		}
	}
	for _, origin := range []string{"https://trusted.example.evil", "http://other:1", "null"} {
		_, res := wstest.TryDial(t, s.addr, "/ws", "Origin: "+origin)
		if res.StatusCode != 403 {
			t.Errorf("Origin %q: status %d, want 403", origin, res.StatusCode)
		}
	}
}

// Echo of text, binary, fragmented and 64 KiB messages; pings answered with
// their payload.
func TestEcho(t *testing.T) {
	t.Parallel()
	s := serve(t, newApp(ws.Config{}))
	c := wstest.Dial(t, s.addr, "/ws")
	c.Send(0x1, []byte("hello"))
	if op, p := c.Message(); op != 0x1 || string(p) != "hello" {
		t.Errorf("text echo: op %d %q", op, p)
	}
	c.Send(0x2, []byte{0, 1, 2, 255})
	if op, p := c.Message(); op != 0x2 || !bytes.Equal(p, []byte{0, 1, 2, 255}) {
		t.Errorf("binary echo: op %d %v", op, p)
	}
	c.Frame(false, 0, 0x1, []byte("frag"), true)
	c.Frame(true, 0, 0x9, []byte("in between"), true) // a ping between fragments is allowed
	c.Frame(false, 0, 0x0, []byte("men"), true)
	c.Frame(true, 0, 0x0, []byte("ted"), true)
	if op, p := c.Message(); op != 0xA || string(p) != "in between" {
		t.Errorf("ping between fragments: op %d %q, want a pong with its payload", op, p)
	}
	if op, p := c.Message(); op != 0x1 || string(p) != "fragmented" {
		t.Errorf("fragmented echo: op %d %q", op, p)
	}
	big := bytes.Repeat([]byte("x"), ws.DefaultReadLimit)
	c.Send(0x2, big)
	if op, p := c.Message(); op != 0x2 || !bytes.Equal(p, big) {
		t.Errorf("64 KiB echo: op %d, %d bytes", op, len(p))
	}
	c.Send(0x9, []byte("ping payload"))
	if op, p := c.Message(); op != 0xA || string(p) != "ping payload" {
		t.Errorf("pong: op %d %q", op, p)
	}
	c.CloseReply(1000)
	if code := c.ExpectClose(); code != 1000 {
		t.Errorf("close answered with %d, want 1000", code)
	}
}

// The protocol rows of the bad-input table: each gets its close code.
func TestProtocolErrors(t *testing.T) {
	t.Parallel()
	s := serve(t, newApp(ws.Config{}))
	cases := []struct {
		name string
		do   func(c *wstest.RawClient)
		want []int // acceptable close codes; -1 is a dropped connection
	}{
		{"over the read limit", func(c *wstest.RawClient) {
			c.Send(0x2, make([]byte, ws.DefaultReadLimit+1))
		}, []int{1009}},
		{"over the read limit in fragments", func(c *wstest.RawClient) {
			c.Frame(false, 0, 0x2, make([]byte, ws.DefaultReadLimit), true)
			c.Frame(true, 0, 0x0, []byte{1}, true)
		}, []int{1009}},
		{"unmasked client frame", func(c *wstest.RawClient) { c.Frame(true, 0, 0x1, []byte("hi"), false) }, []int{1002, -1}},
		{"control frame over 125 bytes", func(c *wstest.RawClient) { c.Send(0x9, make([]byte, 126)) }, []int{1002}},
		{"fragmented control frame", func(c *wstest.RawClient) { c.Frame(false, 0, 0x9, []byte("p"), true) }, []int{1002}},
		{"reserved opcode 3", func(c *wstest.RawClient) { c.Send(0x3, []byte("x")) }, []int{1002}},
		{"reserved control opcode 11", func(c *wstest.RawClient) { c.Send(0xB, nil) }, []int{1002}},
		{"RSV1 without an extension", func(c *wstest.RawClient) { c.Frame(true, 4, 0x1, []byte("x"), true) }, []int{1002}},
		{"RSV2", func(c *wstest.RawClient) { c.Frame(true, 2, 0x1, []byte("x"), true) }, []int{1002}},
		{"RSV3", func(c *wstest.RawClient) { c.Frame(true, 1, 0x1, []byte("x"), true) }, []int{1002}},
		{"continuation without a start", func(c *wstest.RawClient) { c.Send(0x0, []byte("x")) }, []int{1002}},
		{"invalid UTF-8 in text", func(c *wstest.RawClient) { c.Send(0x1, []byte{'a', 0xff, 0xfe}) }, []int{1007}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := wstest.Dial(t, s.addr, "/ws")
			tc.do(c)
			got := c.ExpectClose()
			for _, w := range tc.want {
				if got == w {
					return
				}
			}
			t.Errorf("close code %d, want one of %v", got, tc.want)
		})
	}
}

// A client that never answers pings is closed after the pong timeout; one
// that answers stays.
func TestKeepalive(t *testing.T) {
	t.Parallel()
	s := serve(t, newApp(ws.Config{PingInterval: 50 * time.Millisecond, PongTimeout: 100 * time.Millisecond}))

	silent := wstest.Dial(t, s.addr, "/ws")
	start := time.Now()
	pings := 0
	for {
		_, op, _, err := silent.Read()
		if err != nil {
			break // closed without a close frame: the pong timeout
		}
		if op == 0x9 {
			pings++
		}
		if op == 0x8 {
			break
		}
	}
	if pings == 0 {
		t.Error("no ping before the close")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("closed after %s", d)
	}

	polite := wstest.Dial(t, s.addr, "/ws")
	deadline := time.Now().Add(500 * time.Millisecond)
	answered := 0
	for time.Now().Before(deadline) {
		_, op, p, err := polite.Read()
		if err != nil {
			t.Fatalf("answering client lost its connection: %v", err)
		}
		if op == 0x9 {
			polite.Frame(true, 0, 0xA, p, true)
			answered++
		}
	}
	if answered < 3 {
		t.Errorf("%d pings in 500 ms at a 50 ms interval", answered)
	}
	polite.Send(0x1, []byte("still here"))
	for {
		_, op, p, err := polite.Read()
		if err != nil {
			t.Fatal(err)
		}
		if op == 0x1 {
			if string(p) != "still here" {
				t.Errorf("echo %q", p)
			}
			break
		}
	}
}

// MaxConns: the connection over the cap gets 503 with Retry-After before
// any upgrade; a place freed is taken again.
func TestMaxConns(t *testing.T) {
	t.Parallel()
	s := serve(t, newApp(ws.Config{MaxConns: 2, RetryAfter: 7 * time.Second}))
	a := wstest.Dial(t, s.addr, "/ws")
	wstest.Dial(t, s.addr, "/ws")
	_, res := wstest.TryDial(t, s.addr, "/ws")
	if res.StatusCode != 503 || res.Header.Get("Retry-After") != "7" {
		t.Fatalf("third connection: status %d, Retry-After %q; want 503 and 7", res.StatusCode, res.Header.Get("Retry-After"))
	}
	a.CloseReply(1000)
	a.ExpectClose()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, res := wstest.TryDial(t, s.addr, "/ws")
		if res.StatusCode == 101 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a close, status %d, want 101", res.StatusCode)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The drain: every connection gets close 1001, handlers return, Serve
// returns nil inside the grace; a new handshake during the drain delay gets
// 503 with Retry-After.
func TestDrain(t *testing.T) {
	t.Parallel()
	const n = 50
	app := newApp(ws.Config{})
	app.Config.DrainDelay = 300 * time.Millisecond
	app.Config.ShutdownTimeout = 5 * time.Second
	var returned sync.WaitGroup
	app.Get("/count", func(c *plinth.Ctx) error {
		returned.Add(1)
		defer returned.Done()
		return echo(ws.Config{})(c)
	})
	s := serve(t, app)
	conns := make([]*wstest.RawClient, n)
	for i := range conns {
		conns[i] = wstest.Dial(t, s.addr, "/count")
	}
	start := time.Now()
	s.cancel()
	codes := make(chan int, n)
	for _, c := range conns {
		go func() {
			code := c.ExpectClose()
			if code == 1001 {
				c.CloseReply(1001)
			}
			codes <- code
		}()
	}
	// During the drain delay the listener still accepts: a handshake is refused.
	time.Sleep(50 * time.Millisecond)
	_, res := wstest.TryDial(t, s.addr, "/ws")
	if res.StatusCode != 503 || res.Header.Get("Retry-After") == "" {
		t.Errorf("handshake during the drain: status %d, Retry-After %q; want 503 and a Retry-After",
			res.StatusCode, res.Header.Get("Retry-After"))
	}
	for range n {
		if code := <-codes; code != 1001 {
			t.Errorf("close code %d, want 1001", code)
		}
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
		s.done <- err
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
	returned.Wait()
	if d := time.Since(start); d > app.Config.DrainDelay+app.Config.ShutdownTimeout {
		t.Errorf("drain took %s, over delay + grace", d)
	}
}

// A connection outlives the handler timeout.
func TestHandlerTimeoutLifted(t *testing.T) {
	t.Parallel()
	app := newApp(ws.Config{})
	app.HandlerTimeout = 200 * time.Millisecond
	s := serve(t, app)
	c := wstest.Dial(t, s.addr, "/ws")
	time.Sleep(500 * time.Millisecond)
	c.Send(0x1, []byte("after the timeout"))
	if op, p := c.Message(); op != 0x1 || string(p) != "after the timeout" {
		t.Fatalf("echo after the handler timeout: op %d %q", op, p)
	}
}

// Read returns the close code the peer sent.
func TestCloseStatus(t *testing.T) {
	t.Parallel()
	got := make(chan error, 1)
	app := plinth.New()
	app.Get("/ws", func(c *plinth.Ctx) error {
		conn, err := ws.Accept(c, ws.Config{})
		if err != nil {
			return err
		}
		defer conn.CloseNow()
		_, _, err = conn.Read(context.Background())
		got <- err
		return nil
	})
	s := serve(t, app)
	c := wstest.Dial(t, s.addr, "/ws")
	c.Frame(true, 0, 0x8, binary.BigEndian.AppendUint16(nil, 4000), true)
	err := <-got
	if ws.CloseStatus(err) != 4000 {
		t.Errorf("CloseStatus(%v) = %d, want 4000", err, ws.CloseStatus(err))
	}
	if errors.Is(err, ws.ErrInvalidUTF8) {
		t.Error("unexpected ErrInvalidUTF8")
	}
}

// The body limit and the body read pacing do not apply to a WebSocket: a
// message far over a 16-byte body limit, sent slowly after the body read
// timeout, is echoed.
func TestBodyLimitsDoNotApply(t *testing.T) {
	t.Parallel()
	app := newApp(ws.Config{})
	app.SetBodyLimit(16)
	app.Config.BodyReadTimeout = 200 * time.Millisecond
	s := serve(t, app)
	c := wstest.Dial(t, s.addr, "/ws")
	time.Sleep(400 * time.Millisecond)
	msg := bytes.Repeat([]byte("z"), 4096)
	c.Frame(false, 0, 0x2, msg[:2048], true)
	time.Sleep(300 * time.Millisecond)
	c.Frame(true, 0, 0x0, msg[2048:], true)
	if op, p := c.Message(); op != 0x2 || !bytes.Equal(p, msg) {
		t.Fatalf("echo: op %d, %d bytes", op, len(p))
	}
}

// A peer that never answers the drain's close 1001 is dropped after
// DrainCloseWait: the handlers return and Serve ends well inside the grace.
func TestDrainSilentPeer(t *testing.T) {
	t.Parallel()
	app := newApp(ws.Config{})
	app.Config.ShutdownTimeout = 4 * time.Second
	s := serve(t, app)
	conns := make([]*wstest.RawClient, 20)
	for i := range conns {
		conns[i] = wstest.Dial(t, s.addr, "/ws")
	}
	start := time.Now()
	s.cancel()
	for _, c := range conns {
		if code := c.ExpectClose(); code != 1001 { // read the 1001, never answer it
			t.Errorf("close %d, want 1001", code)
		}
	}
	select {
	case err := <-s.done:
		s.done <- err
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
	if d := time.Since(start); d > ws.DrainCloseWait+2*time.Second {
		t.Errorf("drain took %s with silent peers, want about DrainCloseWait (%s)", d, ws.DrainCloseWait)
	}
}

// A detached connection: the handler returns at once, the echo runs on its
// own goroutine, past the handler timeout; the drain sends it 1001 and,
// with Attach, Serve waits for it.
func TestDetach(t *testing.T) {
	t.Parallel()
	app := plinth.New()
	app.HandlerTimeout = 200 * time.Millisecond
	app.Config.ShutdownTimeout = 5 * time.Second
	ws.Attach(app)
	returned := make(chan struct{}, 10)
	served := make(chan struct{}, 10)
	app.Get("/ws", func(c *plinth.Ctx) error {
		conn, err := ws.Accept(c, ws.Config{})
		if err != nil {
			return err
		}
		conn.Detach(func(conn *ws.Conn) {
			defer func() {
				time.Sleep(300 * time.Millisecond) // Serve must wait for this
				served <- struct{}{}
			}()
			for {
				typ, msg, err := conn.Read(context.Background())
				if err != nil {
					return
				}
				if err := conn.Write(context.Background(), typ, msg); err != nil {
					return
				}
			}
		})
		returned <- struct{}{}
		return nil
	})
	s := serve(t, app)
	c := wstest.Dial(t, s.addr, "/ws")
	select {
	case <-returned:
	case <-time.After(5 * time.Second):
		t.Fatal("the handler did not return after Detach")
	}
	time.Sleep(400 * time.Millisecond) // past the handler timeout
	c.Send(0x1, []byte("detached"))
	if op, p := c.Message(); op != 0x1 || string(p) != "detached" {
		t.Fatalf("echo: op %d %q", op, p)
	}
	s.cancel()
	if code := c.ExpectClose(); code != 1001 {
		t.Errorf("close %d, want 1001", code)
	}
	c.CloseReply(1001)
	select {
	case err := <-s.done:
		s.done <- err
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
	select {
	case <-served:
	default:
		t.Error("Serve returned before the detached connection's goroutine")
	}
}
