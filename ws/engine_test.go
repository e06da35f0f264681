package ws_test

// Accept end to end on both of Plinth's HTTP/1.1 engines: net/http (std)
// and Plinth's own (fast, internal/engine). The library's handshake is
// WriteHeader(101) then Hijack; a served App must send that 101 head before
// it hands the connection over, on either engine, so that a real client
// (coder/websocket's Dial) sees the upgrade.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/ws"
	"github.com/plinth-go/plinth/ws/wstest"
)

// handshakeBound is how long a client waits for the 101 head: a served App
// answers on loopback at once; a head never sent fails the test here
// instead of hanging.
const handshakeBound = 3 * time.Second

// bigMessage is the size of the large messages echoed, within the read
// limit the tests configure on both sides.
const bigMessage = 1 << 20

// forEachEngine runs fn once per engine, in parallel.
func forEachEngine(t *testing.T, fn func(t *testing.T, eng string)) {
	t.Helper()
	for _, eng := range []string{plinth.EngineStd, plinth.EngineFast} {
		t.Run(eng, func(t *testing.T) {
			t.Parallel()
			if env := os.Getenv("PLINTH_ENGINE"); env != "" && env != eng {
				t.Skipf("PLINTH_ENGINE=%s overrides Config.Engine=%s", env, eng)
			}
			fn(t, eng)
		})
	}
}

// engServer is an App served on one engine over loopback.
type engServer struct {
	addr   string
	cancel context.CancelFunc
	done   chan error // Serve's result, put back by whoever reads it
	ends   chan error // one per handler that returned: its session's end
}

// serveEngine serves app on engine eng until the test ends, and checks
// from the startup line that eng is the engine answering.
func serveEngine(t *testing.T, eng string, app *plinth.App, ends chan error) *engServer {
	t.Helper()
	logs := &syncBuffer{}
	app.Config.Engine = eng
	app.Config.Logger = slog.New(slog.NewTextHandler(logs, nil))
	app.Logger = quiet()
	if app.Config.ShutdownTimeout == 0 {
		app.Config.ShutdownTimeout = 5 * time.Second
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &engServer{addr: ln.Addr().String(), cancel: cancel, done: make(chan error, 1), ends: ends}
	go func() { s.done <- app.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(15 * time.Second):
			t.Error("Serve did not return")
		}
	})
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), "plinth: serving") {
		if time.Now().After(deadline) {
			t.Fatalf("no startup line:\n%s", logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), "engine="+eng) {
		t.Fatalf("engine %q: the startup line does not name it:\n%s", eng, logs.String())
	}
	return s
}

// sessionEcho is an echo handler that reports, once it has returned, how
// its session ended: the error of the Read that ended it (a close from the
// peer or the drain), or of its own Close when the client sent "close me"
// (nil: the client answered its close 1000).
func sessionEcho(cfg ws.Config, ends chan<- error) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		conn, err := ws.Accept(c, cfg)
		if err != nil {
			return err
		}
		var end error
		defer func() { ends <- end }() // registered first: runs after CloseNow
		defer conn.CloseNow()
		ctx := c.Context()
		for {
			typ, msg, err := conn.Read(ctx)
			if err != nil {
				end = err
				return nil
			}
			if typ == ws.Text && string(msg) == "close me" {
				end = conn.Close(ws.StatusNormalClosure, "as asked")
				if end == nil {
					end = errServerClosed
				}
				return nil
			}
			if err := conn.Write(ctx, typ, msg); err != nil {
				end = err
				return nil
			}
		}
	}
}

// errServerClosed is the end of a session the server closed with 1000 and
// the client answered.
var errServerClosed = errors.New("server closed with 1000, answered")

// newEngineApp is an App with sessionEcho at /ws.
func newEngineApp(cfg ws.Config, ends chan<- error) *plinth.App {
	app := plinth.New()
	app.Get("/ws", sessionEcho(cfg, ends))
	return app
}

// waitEnd waits for one handler to return and gives its session's end.
func (s *engServer) waitEnd(t *testing.T) error {
	t.Helper()
	select {
	case err := <-s.ends:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("the handler did not return")
		return nil
	}
}

// dial connects a coder/websocket client, with a read limit for the large
// messages; the handshake must complete within handshakeBound.
func dial(t *testing.T, addr string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), handshakeBound)
	defer cancel()
	c, res, err := websocket.Dial(ctx, "ws://"+addr+"/ws", nil)
	if err != nil {
		status := 0
		if res != nil {
			status = res.StatusCode
		}
		t.Fatalf("Dial: status %d, %v", status, err)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	c.SetReadLimit(bigMessage + 1)
	return c
}

// exchange sends text and binary messages, the 1 MiB ones too when big,
// and checks each echo.
func exchange(t *testing.T, c *websocket.Conn, tag string, big bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	type message struct {
		typ websocket.MessageType
		p   []byte
	}
	msgs := []message{
		{websocket.MessageText, []byte("hello " + tag)},
		{websocket.MessageBinary, []byte{0, 1, 2, 0xff, 0xfe}},
		{websocket.MessageText, []byte("héllo wörld, " + tag)},
		{websocket.MessageBinary, nil},
		{websocket.MessageText, []byte{}},
	}
	if big {
		bin := make([]byte, bigMessage)
		for i := range bin {
			bin[i] = byte(i * 7)
		}
		msgs = append(msgs,
			message{websocket.MessageBinary, bin},
			message{websocket.MessageText, bytes.Repeat([]byte("big text "), bigMessage/9)})
	}
	msgs = append(msgs, message{websocket.MessageText, []byte("last, " + tag)})
	for i, m := range msgs {
		if err := c.Write(ctx, m.typ, m.p); err != nil {
			t.Fatalf("%s: write %d (%d bytes): %v", tag, i, len(m.p), err)
		}
		typ, p, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("%s: read the echo of %d (%d bytes): %v", tag, i, len(m.p), err)
		}
		if typ != m.typ || !bytes.Equal(p, m.p) {
			t.Fatalf("%s: echo of %d: type %v, %d bytes; want %v, %d bytes", tag, i, typ, len(p), m.typ, len(m.p))
		}
	}
}

// The raw handshake: the 101 head, with the upgrade's headers and the
// right Sec-WebSocket-Accept, arrives within the bound; frames then echo
// over the same connection and the close handshake completes.
func TestEngineAcceptHandshake(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, eng string) {
		ends := make(chan error, 1)
		s := serveEngine(t, eng, newEngineApp(ws.Config{}, ends), ends)
		nc, err := net.DialTimeout("tcp", s.addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		key := wstest.HandshakeKey()
		req := "GET /ws HTTP/1.1\r\nHost: " + s.addr + "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
			"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + key + "\r\n\r\n"
		if _, err := io.WriteString(nc, req); err != nil {
			t.Fatal(err)
		}
		_ = nc.SetReadDeadline(time.Now().Add(handshakeBound))
		br := bufio.NewReader(nc)
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("no 101 head within %s: %v", handshakeBound, err)
		}
		if res.StatusCode != http.StatusSwitchingProtocols {
			t.Fatalf("status %d, want 101", res.StatusCode)
		}
		if !strings.EqualFold(res.Header.Get("Upgrade"), "websocket") {
			t.Errorf("Upgrade: %q, want websocket", res.Header.Get("Upgrade"))
		}
		if !strings.EqualFold(res.Header.Get("Connection"), "Upgrade") {
			t.Errorf("Connection: %q, want Upgrade", res.Header.Get("Connection"))
		}
		sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		if got, want := res.Header.Get("Sec-WebSocket-Accept"), base64.StdEncoding.EncodeToString(sum[:]); got != want {
			t.Errorf("Sec-WebSocket-Accept %q, want %q", got, want)
		}
		if res.Header.Get("Content-Length") != "" || res.Header.Get("Transfer-Encoding") != "" {
			t.Errorf("101 head with a body framing: Content-Length %q, Transfer-Encoding %q",
				res.Header.Get("Content-Length"), res.Header.Get("Transfer-Encoding"))
		}
		c := wstest.New(t, nc, br)
		c.Send(0x1, []byte("raw hello"))
		if op, p := c.Message(); op != 0x1 || string(p) != "raw hello" {
			t.Errorf("text echo: op %d %q", op, p)
		}
		c.Send(0x2, []byte{9, 8, 7})
		if op, p := c.Message(); op != 0x2 || !bytes.Equal(p, []byte{9, 8, 7}) {
			t.Errorf("binary echo: op %d %v", op, p)
		}
		c.CloseReply(1000)
		if code := c.ExpectClose(); code != 1000 {
			t.Errorf("close answered with %d, want 1000", code)
		}
		if end := s.waitEnd(t); ws.CloseStatus(end) != ws.StatusNormalClosure {
			t.Errorf("the handler's session ended with %v, want close 1000", end)
		}
	})
}

// A real client: text, binary and 1 MiB messages echo; the close is 1000 on
// both sides, whichever side starts it; the handler returns and frees its
// place, so that more sessions than MaxConns (and than the App's
// MaxConnections) run one after another; while one is open, the next is
// refused with 503.
func TestEngineAcceptEcho(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, eng string) {
		ends := make(chan error, 1)
		app := newEngineApp(ws.Config{ReadLimit: bigMessage + 1, MaxConns: 1, PingInterval: plinth.Off}, ends)
		app.Config.MaxConnections = 2 // the listener's cap: a hijacked connection must give its place back too
		s := serveEngine(t, eng, app, ends)
		const sessions = 5
		for i := range sessions {
			tag := fmt.Sprintf("%s session %d", eng, i)
			c := dial(t, s.addr)
			exchange(t, c, tag, i < 2) // 1 MiB both ways once per way of closing
			if i == 0 {                // MaxConns 1 is held by this session
				ctx, cancel := context.WithTimeout(context.Background(), handshakeBound)
				c2, res, err := websocket.Dial(ctx, "ws://"+s.addr+"/ws", nil)
				cancel()
				if err == nil {
					c2.CloseNow()
					t.Fatalf("%s: a second session over MaxConns 1 was accepted", tag)
				}
				if res == nil || res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
					t.Fatalf("%s: a second session over MaxConns 1: %v %v, want 503 with Retry-After", tag, res, err)
				}
			}
			if i%2 == 0 {
				// The client closes: Close returns nil only when the
				// server's close frame carries 1000 as well.
				if err := c.Close(websocket.StatusNormalClosure, "bye"); err != nil {
					t.Fatalf("%s: client Close(1000): %v", tag, err)
				}
				if end := s.waitEnd(t); ws.CloseStatus(end) != ws.StatusNormalClosure {
					t.Fatalf("%s: the server's session ended with %v, want close 1000", tag, end)
				}
			} else {
				// The server closes.
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				err := c.Write(ctx, websocket.MessageText, []byte("close me"))
				if err == nil {
					_, _, err = c.Read(ctx)
				}
				cancel()
				if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
					t.Fatalf("%s: the client's read ended with %v, want close 1000", tag, err)
				}
				if end := s.waitEnd(t); !errors.Is(end, errServerClosed) {
					t.Fatalf("%s: the server's Close(1000): %v", tag, end)
				}
			}
		}
	})
}

// Fifty clients at once, each with its own messages.
func TestEngineAcceptParallel(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, eng string) {
		const n = 50
		ends := make(chan error, n)
		s := serveEngine(t, eng, newEngineApp(ws.Config{PingInterval: plinth.Off}, ends), ends)
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				hctx, hcancel := context.WithTimeout(ctx, handshakeBound)
				c, _, err := websocket.Dial(hctx, "ws://"+s.addr+"/ws", nil)
				hcancel()
				if err != nil {
					errs <- fmt.Errorf("client %d: Dial: %w", i, err)
					return
				}
				defer c.CloseNow()
				for j := range 10 {
					typ := websocket.MessageText
					msg := fmt.Appendf(nil, "client %d message %d", i, j)
					if j%2 == 1 {
						typ = websocket.MessageBinary
						msg = bytes.Repeat([]byte{byte(i), byte(j)}, 1000*(j+1))
					}
					if err := c.Write(ctx, typ, msg); err != nil {
						errs <- fmt.Errorf("client %d: write %d: %w", i, j, err)
						return
					}
					gt, got, err := c.Read(ctx)
					if err != nil {
						errs <- fmt.Errorf("client %d: read %d: %w", i, j, err)
						return
					}
					if gt != typ || !bytes.Equal(got, msg) {
						errs <- fmt.Errorf("client %d: echo %d: type %v, %d bytes; want %v, %d bytes", i, j, gt, len(got), typ, len(msg))
						return
					}
				}
				if err := c.Close(websocket.StatusNormalClosure, ""); err != nil {
					errs <- fmt.Errorf("client %d: Close(1000): %w", i, err)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if t.Failed() {
			return // the sessions' ends say no more than the clients' errors
		}
		for range n {
			if end := s.waitEnd(t); ws.CloseStatus(end) != ws.StatusNormalClosure {
				t.Errorf("a server session ended with %v, want close 1000", end)
			}
		}
	})
}

// The drain (what SIGTERM starts: Serve's context ends): every client gets
// close 1001, the handlers return, Serve returns nil.
func TestEngineAcceptDrain(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, eng string) {
		const n = 5
		ends := make(chan error, n)
		app := newEngineApp(ws.Config{}, ends)
		s := serveEngine(t, eng, app, ends)
		conns := make([]*websocket.Conn, n)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for i := range conns {
			conns[i] = dial(t, s.addr)
			msg := fmt.Appendf(nil, "before the drain %d", i)
			if err := conns[i].Write(ctx, websocket.MessageText, msg); err != nil {
				t.Fatal(err)
			}
			if _, p, err := conns[i].Read(ctx); err != nil || !bytes.Equal(p, msg) {
				t.Fatalf("echo before the drain: %q %v", p, err)
			}
		}
		start := time.Now()
		s.cancel()
		for i, c := range conns {
			_, _, err := c.Read(ctx)
			if got := websocket.CloseStatus(err); got != websocket.StatusGoingAway {
				t.Errorf("client %d: the drain ended its read with %v (status %d), want close 1001", i, err, got)
			}
		}
		for range n {
			if end := s.waitEnd(t); ws.CloseStatus(end) != ws.StatusGoingAway && !errors.Is(end, net.ErrClosed) {
				// The handler's Read sees the client's answer to 1001, or
				// the socket closed by the drain after DrainCloseWait.
				t.Errorf("a server session ended with %v, want close 1001", end)
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
		if d := time.Since(start); d > app.Config.ShutdownTimeout {
			t.Errorf("the drain took %s, over the grace %s", d, app.Config.ShutdownTimeout)
		}
	})
}
