package httpserve

import (
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The limits of Plinth's App.Run by default (config.go, server.go,
// listener.go), given to a plain net/http server for the std-limits
// framework of cmd/bench-server, so that "Plinth against net/http" compares
// the same protection.
const (
	LimitHeaderTimeout = 10 * time.Second // ReadHeaderTimeout
	LimitIdleTimeout   = 120 * time.Second
	LimitHeaderBytes   = 64 << 10
	LimitBodyBytes     = 2 << 20
	LimitConnections   = 10000 // lowered to the open-file limit less 128, as Plinth does
)

// NewLimitedServer returns an http.Server with Plinth's default limits
// serving h: header read timeout, idle timeout, header size, and request
// bodies bounded by http.MaxBytesReader (a declared length over the limit is
// refused with 413 before reading). Serve it on LimitListener(ln) for the
// connection limit.
func NewLimitedServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           LimitBody(h, LimitBodyBytes),
		ReadHeaderTimeout: LimitHeaderTimeout,
		IdleTimeout:       LimitIdleTimeout,
		MaxHeaderBytes:    LimitHeaderBytes,
	}
}

// LimitBody bounds request bodies to n bytes. Requests without a body (GET,
// most of a benchmark) pass untouched, as in Plinth.
func LimitBody(h http.Handler, n int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > n {
			w.Header().Set("Connection", "close")
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, n)
		}
		h.ServeHTTP(w, r)
	})
}

// busy is what a connection past the limit gets before it is closed.
var busy = []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

// LimitListener accepts at most LimitConnections connections at once (or the
// open-file limit less 128, when lower); past it a new connection gets a 503
// and is closed at once, without queueing.
func LimitListener(ln net.Listener) net.Listener {
	limit := int64(LimitConnections)
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) == nil && rl.Cur < 1<<30 && int64(rl.Cur)-128 < limit {
		limit = max(int64(rl.Cur)-128, 1)
	}
	return &capListener{Listener: ln, max: limit}
}

type capListener struct {
	net.Listener
	max  int64
	open atomic.Int64
}

func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) <= l.max {
			return &cappedConn{Conn: c, l: l}, nil
		}
		l.open.Add(-1)
		_ = c.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
		_, _ = c.Write(busy)
		_ = c.Close()
	}
}

// cappedConn frees its slot once, however often it is closed.
type cappedConn struct {
	net.Conn
	l    *capListener
	once sync.Once
}

// ReadFrom keeps net/http's sendfile path, which the wrapper would hide.
func (c *cappedConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// CloseWrite keeps net/http's half-close after a 4xx on a bad request.
func (c *cappedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *cappedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}
