// Package engine is Plinth's own HTTP/1.1 server: the same http.Handler as
// net/http's, over a connection loop built for the request rate of a
// framework rather than for generality. A goroutine serves each connection
// on Go's netpoller; the request head is checked as it arrives, copied into
// one string (one per request, or one per batch of pipelined GET and HEAD
// requests) and sliced where the check found its parts; each request gets
// its own *http.Request, Header map, URL, context and Body (see exchange),
// while what the handler never sees (the read buffer, the response writer
// and its buffers) is reused from one request of a connection to the next;
// responses are sent when no pipelined request is waiting, so a pipelined
// batch is answered with one write.
//
// It speaks HTTP/1.x in clear text only. What differs from net/http is
// listed in docs/engine.md; as on net/http, a handler may keep its request
// (a goroutine may read it after the handler returned), but not its
// ResponseWriter.
package engine

import (
	"context"
	"errors"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Config configures a Server. The zero value of a duration means none.
type Config struct {
	// Handler answers every request.
	Handler http.Handler
	// BaseContext is the parent of every request's context; nil is
	// context.Background().
	BaseContext context.Context
	// HeaderReadTimeout bounds reading a request head, from its first byte;
	// <= 0 is none.
	HeaderReadTimeout time.Duration
	// IdleTimeout closes a keep-alive connection idle this long; <= 0 none.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds a request head (request line, headers, CRLFs and
	// the empty line); one byte more is answered 431. <= 0 is 64 KiB.
	MaxHeaderBytes int
	// ErrorLog receives panics of handlers and accept errors; nil is the
	// log package's standard logger.
	ErrorLog *log.Logger
}

// ErrServerClosed is what Serve returns after Shutdown or Close.
var ErrServerClosed = http.ErrServerClosed

// Server serves HTTP/1.1 on listeners until Shutdown or Close.
type Server struct {
	cfg      Config
	base     context.Context
	mu       sync.Mutex
	lns      map[net.Listener]struct{}
	conns    map[*conn]struct{}
	shutting atomic.Bool
	closed   atomic.Bool
}

// New returns a Server for cfg.
func New(cfg Config) *Server {
	if cfg.MaxHeaderBytes <= 0 {
		cfg.MaxHeaderBytes = 64 << 10
	}
	if cfg.ErrorLog == nil {
		cfg.ErrorLog = log.Default()
	}
	base := cfg.BaseContext
	if base == nil {
		base = context.Background()
	}
	startClock()
	return &Server{cfg: cfg, base: base, lns: map[net.Listener]struct{}{}, conns: map[*conn]struct{}{}}
}

// Serve accepts connections on ln until Shutdown or Close, then returns
// ErrServerClosed; it returns another error if Accept fails for good. Several
// Serve calls may run at once, one per listener.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.shutting.Load() {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	s.lns[ln] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.lns, ln)
		s.mu.Unlock()
	}()
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.shutting.Load() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || isTemporary(err) {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.cfg.ErrorLog.Printf("engine: accept error: %v; retrying in %v", err, backoff)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		c := newConn(s, nc)
		if !s.track(c) {
			nc.Close()
			return ErrServerClosed
		}
		go c.serve()
	}
}

func isTemporary(err error) bool {
	t, ok := err.(interface{ Temporary() bool })
	return ok && t.Temporary()
}

func (s *Server) track(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutting.Load() {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// Shutdown stops accepting, closes idle connections, lets each request in
// flight finish (its response carries "Connection: close") and closes its
// connection after it, and returns when no connection is left, or ctx's
// error when ctx ends first (the connections left are not closed: Close
// does that). Hijacked connections are not waited for.
func (s *Server) Shutdown(ctx context.Context) error {
	s.shutting.Store(true)
	s.closeListeners()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if s.closeIdle() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// Close closes the listeners and every connection at once.
func (s *Server) Close() error {
	s.shutting.Store(true)
	s.closed.Store(true)
	s.closeListeners()
	s.mu.Lock()
	for c := range s.conns {
		c.nc.Close()
		delete(s.conns, c)
	}
	s.mu.Unlock()
	return nil
}

func (s *Server) closeListeners() {
	s.mu.Lock()
	for ln := range s.lns {
		ln.Close()
	}
	s.mu.Unlock()
}

// closeIdle closes the connections waiting for a request and reports
// whether none is left.
func (s *Server) closeIdle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if c.state.CompareAndSwap(stateIdle, stateClosed) {
			c.nc.Close()
			delete(s.conns, c)
		}
	}
	return len(s.conns) == 0
}

// The date line, re-rendered once a second.
var (
	dateLine  atomic.Pointer[[]byte]
	clockOnce sync.Once
)

func renderDate(t time.Time) {
	b := make([]byte, 0, 40)
	b = append(b, "Date: "...)
	b = t.UTC().AppendFormat(b, http.TimeFormat)
	b = append(b, "\r\n"...)
	dateLine.Store(&b)
}

func startClock() {
	clockOnce.Do(func() {
		renderDate(time.Now())
		go func() {
			for t := range time.Tick(time.Second) {
				renderDate(t)
			}
		}()
	})
}
