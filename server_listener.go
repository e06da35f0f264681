package plinth

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// refusal is what a connection past the limit gets before it is closed.
var refusal = []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n" +
	"Content-Length: 36\r\nRetry-After: 1\r\nConnection: close\r\n\r\nserver at its connection limit; retry\n")

// limitListener bounds the connections open at once. Past the limit, a new
// connection is answered with a minimal 503 and closed on the accepting
// goroutine: nothing queues, and the accept loop does no more work than the
// connections it is offered. Over TLS it is closed without a word: the
// listener sits below the TLS layer, where a plain-text 503 would reach the
// client as a broken handshake ("wrong version number"), and completing a
// handshake only to refuse would spend the most expensive part of a
// connection on one the server cannot serve. The client sees the connection
// closed (EOF or a reset) before the handshake, and retries as it would any
// refused connection.
type limitListener struct {
	net.Listener
	*connLimiter
	refusal []byte // nil: close without writing (TLS)
}

// connLimiter is the count that every listener of one server shares (there
// are several with ReusePort).
type connLimiter struct {
	max     int64
	active  atomic.Int64
	refused atomic.Int64
}

func newLimitListener(ln net.Listener, max int) *limitListener {
	return &limitListener{Listener: ln, connLimiter: &connLimiter{max: int64(max)}, refusal: refusal}
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.active.Add(1) <= l.max {
			return &limitConn{Conn: c, l: l.connLimiter}, nil
		}
		l.active.Add(-1)
		l.refused.Add(1)
		if l.refusal != nil {
			// A fresh socket's send buffer is empty, so this write does not
			// block; the deadline guards against the exception.
			_ = c.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
			_, _ = c.Write(l.refusal)
		}
		_ = c.Close()
	}
}

// limitConn gives its slot back exactly once, however often it is closed
// (net/http and a hijacking handler may both close it).
type limitConn struct {
	net.Conn
	l    *connLimiter
	once sync.Once
}

// ReadFrom keeps net/http's sendfile path, which the wrapper would hide.
func (c *limitConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(writerOnly{c.Conn}, r)
}

// CloseWrite keeps net/http's half-close (it sends a 431 or 400 and then a
// FIN, so that the client reads the answer before the connection resets).
func (c *limitConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.active.Add(-1) })
	return err
}
