package ws

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
)

// MessageType is the type of a data message.
type MessageType int

// The data message types.
const (
	Text   MessageType = MessageType(websocket.MessageText)
	Binary MessageType = MessageType(websocket.MessageBinary)
)

// StatusCode is a close status code (RFC 6455, section 7.4).
type StatusCode int

// Close status codes used by the package.
const (
	StatusNormalClosure   StatusCode = 1000
	StatusGoingAway       StatusCode = 1001 // sent to every connection when the App drains
	StatusProtocolError   StatusCode = 1002
	StatusInvalidPayload  StatusCode = 1007 // a text message that is not UTF-8
	StatusPolicyViolation StatusCode = 1008
	StatusMessageTooBig   StatusCode = 1009 // over Config.ReadLimit
	StatusInternalError   StatusCode = 1011
)

// ErrInvalidUTF8 is returned by Read for a text message that is not valid
// UTF-8; the connection is then closed with 1007.
var ErrInvalidUTF8 = errors.New("ws: text message is not valid UTF-8")

// CloseStatus returns the close code the peer sent, as carried by an error
// of Read or Write, or -1 when err is not a close.
func CloseStatus(err error) StatusCode { return StatusCode(websocket.CloseStatus(err)) }

// Conn is an accepted WebSocket connection. Read must not be called from
// two goroutines at once; Write, Ping and Close may be called from any.
type Conn struct {
	wc       *websocket.Conn
	nc       net.Conn
	reg      *registry
	timer    *time.Timer
	once     sync.Once
	checkUTF bool

	// reqCtx is the request's context (c.Context() at Accept); stop
	// unregisters the close that its end triggers. Read, Write and Ping
	// given reqCtx pass the library a context that never ends instead, so
	// that no per-call watch (context.AfterFunc) is set up: the connection
	// is closed once, when reqCtx ends.
	reqCtx context.Context
	stopMu sync.Mutex
	stop   func() bool // nil once called
}

func newConn(wc *websocket.Conn, nc net.Conn, reg *registry, cfg Config, reqCtx context.Context) *Conn {
	c := &Conn{wc: wc, nc: nc, reg: reg, checkUTF: !cfg.AllowInvalidUTF8, reqCtx: reqCtx}
	c.stop = context.AfterFunc(reqCtx, func() { _ = c.CloseNow() })
	if cfg.ReadLimit > 0 {
		wc.SetReadLimit(cfg.ReadLimit)
	} else {
		wc.SetReadLimit(-1)
	}
	if cfg.PingInterval > 0 {
		interval, timeout := cfg.PingInterval, cfg.PongTimeout
		c.timer = time.AfterFunc(interval, func() { c.keepalive(interval, timeout) })
	}
	return c
}

// keepalive runs on the timer: a ping, and the connection closed when its
// pong does not come back within timeout.
func (c *Conn) keepalive(interval, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	err := c.wc.Ping(ctx)
	cancel()
	if err != nil {
		_ = c.CloseNow()
		return
	}
	c.timer.Reset(interval)
}

// Read reads the next data message, answering pings and pongs on the way.
// With ctx the request's context (c.Context(), the usual case) or
// context.Background() a read allocates only the message; another context
// costs the library's watch of it per call.
// An error ends the connection: the peer closed it (CloseStatus tells the
// code), the read limit was passed (close 1009 sent), a protocol error
// (1002 sent), invalid UTF-8 in a text message (1007 sent, ErrInvalidUTF8),
// ctx ended, or the drain closed it (1001).
func (c *Conn) Read(ctx context.Context) (MessageType, []byte, error) {
	typ, b, err := c.wc.Read(c.libCtx(ctx))
	if err != nil {
		c.release()
		return 0, nil, err
	}
	if c.checkUTF && typ == websocket.MessageText && !utf8.Valid(b) {
		_ = c.Close(StatusInvalidPayload, "invalid UTF-8")
		return 0, nil, ErrInvalidUTF8
	}
	return MessageType(typ), b, nil
}

// Write writes one message; ctx bounds the write (a write that ctx cuts
// short closes the connection).
func (c *Conn) Write(ctx context.Context, typ MessageType, p []byte) error {
	return c.wc.Write(c.libCtx(ctx), websocket.MessageType(typ), p)
}

// Ping sends a ping and waits for its pong, which arrives only while a Read
// is in progress.
func (c *Conn) Ping(ctx context.Context) error { return c.wc.Ping(c.libCtx(ctx)) }

// libCtx is the context given to the library for ctx: the request's
// context, watched once for the whole connection, becomes one that never
// ends (no watch per call, no allocation); any other passes through.
func (c *Conn) libCtx(ctx context.Context) context.Context {
	if ctx == c.reqCtx {
		return context.Background()
	}
	return ctx
}

// Close sends a close frame with code and reason (at most 123 bytes), waits
// up to 5 s for the peer's, and closes the connection. Later calls do
// nothing.
func (c *Conn) Close(code StatusCode, reason string) error {
	defer c.release()
	return c.wc.Close(websocket.StatusCode(code), reason)
}

// CloseNow closes the connection without a close handshake; a handler
// defers it. It does nothing after Close.
func (c *Conn) CloseNow() error {
	defer c.release()
	err := c.wc.CloseNow()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// DrainCloseWait is how long a connection told to go away by the drain
// (close 1001) waits for the peer's close frame before its socket is
// closed, so that handlers return well inside the grace period.
const DrainCloseWait = time.Second

// goAway sends close 1001 and waits at most DrainCloseWait for the peer's
// answer (the library alone would wait 5 s).
func (c *Conn) goAway() {
	if c.nc != nil {
		t := time.AfterFunc(DrainCloseWait, func() { _ = c.nc.Close() })
		defer t.Stop()
	}
	_ = c.Close(StatusGoingAway, "server shutting down")
}

// Detach hands the connection to serve, run on a new goroutine, so that
// the handler can return at once: net/http's state of the request, the
// Plinth Ctx and the handler's stack are released, which an idle
// connection no longer holds (measured in docs/realtime.md). Call it from the handler, right
// after Accept, and return; the handler must not use conn afterwards.
// serve owns the connection (it is closed when serve returns) and reads
// with context.Background() or a context of its own (the request's has
// ended). The drain still sends it close 1001; for Serve and Run to wait
// for detached connections to end, install ws on the App with Attach.
func (c *Conn) Detach(serve func(conn *Conn)) {
	c.unwatch()    // the request's context ends when the handler returns: no longer the connection's
	c.reqCtx = nil // and nothing of the request stays reachable
	c.reg.detached.Add(1)
	go func() {
		defer c.reg.detached.Done()
		defer c.CloseNow()
		serve(c)
	}()
}

// Subprotocol returns the subprotocol chosen, or "".
func (c *Conn) Subprotocol() string { return c.wc.Subprotocol() }

// RemoteAddr returns the peer's address as the connection sees it.
func (c *Conn) RemoteAddr() net.Addr {
	if c.nc == nil {
		return nil
	}
	return c.nc.RemoteAddr()
}

// Unwrap returns the underlying github.com/coder/websocket connection.
func (c *Conn) Unwrap() *websocket.Conn { return c.wc }

// unwatch stops the watch of the request's context and drops it.
func (c *Conn) unwatch() {
	c.stopMu.Lock()
	defer c.stopMu.Unlock()
	if c.stop != nil {
		c.stop()
		c.stop = nil
	}
}

func (c *Conn) release() {
	c.once.Do(func() {
		if c.timer != nil {
			c.timer.Stop()
		}
		c.unwatch()
		c.reg.remove(c)
	})
}
