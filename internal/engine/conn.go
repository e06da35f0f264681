package engine

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"
)

// Connection states, for Shutdown: only an idle connection (waiting for the
// first byte of a request, nothing buffered) is closed under its feet.
const (
	stateActive int32 = iota
	stateIdle
	stateClosed
)

const readBufferSize = 4 << 10

// conn is one client connection and everything reused across its requests.
type conn struct {
	srv    *Server
	nc     net.Conn
	br     *bufio.Reader
	out    []byte // responses not yet written to nc
	state  atomic.Int32
	ctx    context.Context
	cancel context.CancelFunc
	remote string

	ex          *exchange     // the request being served: fresh for each (see exchange)
	req         *http.Request // &ex.req
	body        body
	resp        response
	big         []byte   // a head longer than the read buffer
	scratch     []byte   // where an unread body is discarded to
	lastKeys    []hdrKey // the names of the previous response's header
	hi          headInfo // what parseHead noted of the request's fields
	scan        headScan // what headEnd found in the head
	ahead       string   // the rest of the copy the last head was cut from (see headString)
	rdl         time.Time
	wdl         bool // a write deadline was set by the handler
	werr        error
	lastPOST    bool
	served      bool // a request was read: the next wait is an idle one
	closeAfter  bool
	linger      bool // close with a half-close and a wait (a body too big to discard)
	hijacked    bool
	kept        bool // a request was served and the connection kept: the next wait is net/http's Peek(4)
	poisonState      // plinth_enginepoison: the last request, to check it was left alone (empty otherwise)
}

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{srv: s, nc: nc, remote: nc.RemoteAddr().String()}
	ctx := context.WithValue(s.base, http.LocalAddrContextKey, nc.LocalAddr())
	c.ctx, c.cancel = context.WithCancel(ctx)
	c.resp.c = c
	// No size hint: a map of up to 8 names is one group, which a response's
	// header usually fits (lookups, assignments and the clear per request
	// cost less than a table's); it grows on its own when one needs more.
	c.resp.hdr = make(http.Header)
	c.out = make([]byte, 0, readBufferSize)
	return c
}

// broken records that the connection failed (a read or a write): the
// request's context is cancelled, and the connection closes.
func (c *conn) broken() {
	c.closeAfter = true
	c.cancel()
}

func isNetError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed)
}

func (c *conn) close() {
	c.state.Store(stateClosed)
	c.nc.Close()
	c.cancel()
	c.srv.untrack(c)
}

// setReadDeadline moves the read deadline to t, skipping the system call
// when t is less than a second later than the deadline already set.
func (c *conn) setReadDeadline(t time.Time) {
	if t.IsZero() {
		if !c.rdl.IsZero() {
			c.rdl = t
			_ = c.nc.SetReadDeadline(t)
		}
		return
	}
	if !c.rdl.IsZero() && !t.Before(c.rdl) && t.Sub(c.rdl) < time.Second {
		return
	}
	c.rdl = t
	_ = c.nc.SetReadDeadline(t)
}

func (c *conn) serve() {
	c.br = bufio.NewReaderSize(c.nc, readBufferSize)
	defer func() {
		// A panic outside the handler (a bug of the engine's) ends this
		// connection, not the process, as net/http does.
		if err := recover(); err != nil {
			const size = 64 << 10
			buf := make([]byte, size)
			buf = buf[:runtime.Stack(buf, false)]
			c.srv.cfg.ErrorLog.Printf("engine: panic serving %v: %v\n%s", c.remote, err, buf)
		}
		if !c.hijacked {
			c.close()
		}
	}()
	for {
		head, perr, ok := c.readHead()
		if !ok {
			c.flush()
			return
		}
		if perr != nil {
			c.refuse(perr)
			return
		}
		c.reset()
		if perr := c.parseHead(head); perr != nil {
			c.refuse(perr)
			return
		}
		req := c.req
		c.lastPOST = req.Method == "POST"
		var ex []string
		if c.hi.expect { // looked up only when the head had the field
			ex = req.Header["Expect"]
		}
		if len(ex) > 0 && ex[0] != "" {
			if hasToken(ex[0], "100-continue") {
				if req.ProtoAtLeast(1, 1) && req.ContentLength != 0 {
					c.body.expect, c.body.ecr = true, true
				}
			} else {
				c.resp.hdr["Connection"] = []string{"close"}
				c.resp.WriteHeader(http.StatusExpectationFailed)
				c.closeAfter = true
				c.resp.finish()
				c.flush()
				// As net/http: the body, up to 256 KiB, is read before
				// the connection closes.
				_ = c.body.Close()
				return
			}
		}
		if req.ContentLength != 0 {
			c.setReadDeadline(time.Time{}) // the handler's body reads set their own
			if len(c.out) > 0 {
				c.flush() // earlier answers go before the body's reads may wait
			}
		}
		aborted := c.runHandler()
		c.ex.end() // as net/http: the context ends, and the Body is no longer the connection's
		if c.hijacked {
			return
		}
		if aborted {
			c.flush()          // earlier responses, and what of this one was sent
			_ = c.body.Close() // as net/http, also after a panic
			return
		}
		c.resp.finish()
		c.closeBody()
		releaseRequest(c)
		if c.wdl {
			c.wdl = false
			_ = c.nc.SetWriteDeadline(time.Time{})
		}
		c.kept = true
		if c.closeAfter || c.srv.shutting.Load() {
			c.flush()
			if c.linger {
				c.closeWriteAndWait()
			}
			return
		}
		if c.br.Buffered() == 0 || len(c.out) >= 16<<10 {
			if !c.flush() {
				return
			}
		}
	}
}

// reset makes the next request's exchange, and prepares the reused
// response writer for it.
func (c *conn) reset() {
	c.ex = newExchange(c, c.scan.lines)
	c.req = &c.ex.req
	c.resp.reset(c.req)
}

// idle drops what the connection holds of its last request before it waits
// for the next one, so that an idle connection keeps neither that request
// (its head, its header map) nor buffers that one large request or
// response grew: idle memory per connection stays that of a new one,
// whatever came before (TestIdleMemory). The usual buffers (the read
// buffer, the response's 4 KiB) are kept, as net/http keeps its own.
func (c *conn) idle() {
	c.ex, c.req, c.ahead = nil, nil, ""
	c.body.req = nil
	c.hi = headInfo{}
	c.big = nil
	if cap(c.out) > maxIdleOut {
		c.out = make([]byte, 0, readBufferSize)
	}
	c.resp.idle()
	if cap(c.lastKeys) > maxIdleKeys {
		c.lastKeys = nil
	}
}

// maxIdleOut is the largest response buffer an idle connection keeps, and
// maxIdleKeys the most response header names it remembers (see idle).
const (
	maxIdleOut  = 16 << 10
	maxIdleKeys = 32
)

// runHandler calls the handler, turning a panic into a 500 (when nothing
// was written) and a closed connection; http.ErrAbortHandler closes it
// without a log line, as net/http does.
func (c *conn) runHandler() (aborted bool) {
	defer func() {
		if err := recover(); err != nil {
			c.closeAfter = true
			if c.hijacked {
				return
			}
			aborted = true
			if err != http.ErrAbortHandler {
				const size = 64 << 10
				buf := make([]byte, size)
				buf = buf[:runtime.Stack(buf, false)]
				c.srv.cfg.ErrorLog.Printf("engine: panic serving %v: %v\n%s", c.remote, err, buf)
				if !c.resp.committed {
					c.resp.abortTo500()
				}
			}
		}
	}()
	c.srv.cfg.Handler.ServeHTTP(&c.resp, c.req)
	return false
}

// readHead returns the next request head, or a refusal, or ok false when the
// connection ended (closed, timed out, or closed by Shutdown while idle).
func (c *conn) readHead() (head string, perr *parseError, ok bool) {
	br := c.br
	// The wait for a request: its first byte on a new connection, and
	// four bytes after a request, as net/http (its Peek(4) before it
	// reads the next request: a client that closes after fewer is not
	// answered, and a 400 for bytes that cannot start a request waits
	// for four of them).
	need := 1
	if c.kept {
		need = 4
	}
	// deadlineSet: the read deadline bounds the head already. On a new
	// connection the wait for its first byte does: as on net/http, the
	// header timeout counts from the connection's start, and a first byte
	// late in it does not restart it.
	deadlineSet := false
	if br.Buffered() < need {
		if !c.flush() {
			return "", nil, false
		}
		// A new connection gets the head's timeout for its first byte,
		// as on net/http; between requests, the idle timeout.
		d := c.srv.cfg.IdleTimeout
		if !c.served && c.srv.cfg.HeaderReadTimeout > 0 {
			d = c.srv.cfg.HeaderReadTimeout
			deadlineSet = true
		}
		if d > 0 {
			c.setReadDeadline(time.Now().Add(d))
		}
		c.served = true
		c.state.Store(stateIdle)
		c.idle()
		if c.srv.shutting.Load() {
			return "", nil, false
		}
		if _, err := br.Peek(need); err != nil {
			return "", nil, false
		}
		if !c.state.CompareAndSwap(stateIdle, stateActive) {
			return "", nil, false
		}
	}
	if c.lastPOST {
		// RFC 7230 section 3 tolerance for old buggy clients, as
		// net/http: up to 4 CR or LF bytes after a POST are skipped
		// (of the four it waited for; then the head is read, however
		// few bytes are left).
		c.lastPOST = false
		peek, _ := br.Peek(min(br.Buffered(), 4))
		n := 0
		for n < len(peek) && (peek[n] == '\r' || peek[n] == '\n') {
			n++
		}
		_, _ = br.Discard(n)
	}
	max := c.srv.cfg.MaxHeaderBytes
	from := 0
	for {
		buf, _ := br.Peek(br.Buffered())
		n, next, perr := headEnd(buf, from, &c.scan)
		if perr != nil {
			if next > max {
				return "", errTooLarge, true
			}
			return "", perr, true
		}
		if n > 0 {
			if n > max {
				return "", errTooLarge, true
			}
			head = c.headString(buf, n)
			_, _ = br.Discard(n)
			return head, nil, true
		}
		if len(buf) >= max {
			return "", errTooLarge, true
		}
		if !deadlineSet {
			deadlineSet = true
			if d := c.srv.cfg.HeaderReadTimeout; d > 0 {
				c.setReadDeadline(time.Now().Add(d))
			}
		}
		if len(buf) == br.Size() {
			return c.readBigHead()
		}
		from = next
		if !c.flush() { // the answers so far go before a wait
			return "", nil, false
		}
		if _, err := br.Peek(len(buf) + 1); err != nil {
			perr := eofError(err, buf, from)
			return "", perr, perr != nil
		}
	}
}

// eofError is what a head cut by err gets, head being what arrived and
// lineStart where its last, unfinished line starts: nothing (the connection
// just closes) when it timed out or nothing was read; a 400, as net/http,
// when the client closed mid-head, except where net/http reads io.EOF,
// which it does not answer: the client closed in the request line just
// after a multiple of net/http's line buffer (see lineEndsAtFragment).
func eofError(err error, head []byte, lineStart int) *parseError {
	if len(head) == 0 || !errors.Is(err, io.EOF) {
		return nil
	}
	if lineStart == 0 && lineEndsAtFragment(head) {
		return nil
	}
	return errMalformed
}

// stdLineBuffer is the size of the bufio.Reader net/http reads a request
// head with.
const stdLineBuffer = 4 << 10

// lineEndsAtFragment reports whether line, the whole of an unfinished line
// before the end of the stream, ends where bufio.Reader.ReadLine over a
// stdLineBuffer buffer returns a fragment (a full buffer, less a CR it
// keeps for the next call): its next call then returns io.EOF rather than
// the rest of the line, so net/http's request-line read fails with io.EOF.
func lineEndsAtFragment(line []byte) bool {
	for len(line) >= stdLineBuffer {
		n := stdLineBuffer
		if line[n-1] == '\r' {
			n--
		}
		line = line[n:]
	}
	return len(line) == 0
}

// headString returns buf[:n], a complete head at the start of the read
// buffer, as a string. Pipelined GET and HEAD requests share one copy: when
// at least minAhead bytes follow such a head in the buffer, all buffered
// bytes are copied at once, and a later head is sliced from what is left of
// that copy if it is there, checked byte for byte (a body read in between
// only costs a new copy). A kept header value then keeps that copy, at most
// the read buffer's 4 KiB, alive. Other methods (a body often follows the
// head) get a copy of their head alone.
func (c *conn) headString(buf []byte, n int) string {
	if rest := c.ahead; len(rest) >= n && rest[:n] == unsafe.String(&buf[0], n) {
		c.ahead = rest[n:]
		return rest[:n]
	}
	if len(buf)-n < minAhead || !(buf[0] == 'G' && buf[1] == 'E' && buf[2] == 'T' && buf[3] == ' ' ||
		buf[0] == 'H' && buf[1] == 'E' && buf[2] == 'A' && buf[3] == 'D' && buf[4] == ' ') {
		c.ahead = ""
		return string(buf[:n])
	}
	s := string(buf)
	c.ahead = s[n:]
	return s[:n]
}

// minAhead is the fewest bytes after a head for headString to copy them
// with it: about the shortest request head.
const minAhead = 24

// readBigHead reads a head longer than the read buffer into c.big.
func (c *conn) readBigHead() (string, *parseError, bool) {
	br := c.br
	max := c.srv.cfg.MaxHeaderBytes
	big := c.big[:0]
	from := 0
	for {
		buf, _ := br.Peek(br.Buffered())
		k := len(buf)
		big = append(big, buf...)
		n, next, perr := headEnd(big, from, &c.scan)
		if perr != nil {
			c.big = big[:0]
			if next > max {
				return "", errTooLarge, true
			}
			return "", perr, true
		}
		if n > 0 {
			c.big = big[:0]
			if n > max {
				return "", errTooLarge, true
			}
			_, _ = br.Discard(k - (len(big) - n))
			return string(big[:n]), nil, true
		}
		_, _ = br.Discard(k)
		if len(big) >= max {
			c.big = big[:0]
			return "", errTooLarge, true
		}
		from = next
		if !c.flush() {
			return "", nil, false
		}
		if _, err := br.Peek(1); err != nil {
			c.big = big[:0]
			perr := eofError(err, big, from)
			return "", perr, perr != nil
		}
	}
}

// closeBody closes the request body once the response is out, as
// net/http's finishRequest does, whether or not the connection stays open:
// up to 256 KiB of what the handler left unread is read and dropped (see
// body.Close), so that a client still sending its body reads the answer
// rather than a reset, and a kept connection goes on where the body ends.
// A body given up on closes the connection with a lingering half-close.
func (c *conn) closeBody() {
	b := &c.body
	if !b.closed && b.unread() {
		c.flush() // the answer goes before the wait for the rest of the body
	}
	_ = b.Close()
	if b.earlyClose {
		c.closeAfter = true
		c.linger = true
	}
}

// rstAvoidanceDelay is how long a connection closed with a half-close
// waits before it closes, as net/http's.
const rstAvoidanceDelay = 500 * time.Millisecond

// closeWriteAndWait half-closes the connection and waits a little, as
// net/http does after a body it gave up on (or a 431), so that the client
// reads the answer before unread bytes make the close a reset.
func (c *conn) closeWriteAndWait() {
	c.flush()
	if cw, ok := c.nc.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	time.Sleep(rstAvoidanceDelay)
}

// refuse answers a request the server will not serve, as net/http words it,
// after the responses still pending, and ends the connection.
func (c *conn) refuse(perr *parseError) {
	if perr == nil {
		c.flush()
		return
	}
	const hdrs = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
	text := http.StatusText(perr.status)
	var msg string
	switch {
	case perr == errTooLarge:
		msg = "431 " + text + hdrs + "431 " + text
	case perr.status == 501:
		msg = "501 " + text + hdrs + perr.reason
	case perr.status == 400:
		msg = "400 Bad Request" + hdrs + "400 Bad Request"
	default:
		s := strconv.Itoa(perr.status) + " " + text + ": " + perr.reason
		msg = s + hdrs + s
	}
	c.out = append(c.out, "HTTP/1.1 "...)
	c.out = append(c.out, msg...)
	c.flush()
	if perr == errTooLarge {
		c.closeWriteAndWait()
	}
}

// flush writes the pending responses; false when the connection failed.
func (c *conn) flush() bool {
	if len(c.out) == 0 {
		return c.werr == nil
	}
	if c.werr != nil {
		c.out = c.out[:0]
		return false
	}
	_, err := c.nc.Write(c.out)
	c.out = c.out[:0]
	if err != nil {
		c.werr = err
		c.broken()
		return false
	}
	return true
}

// sendContinue answers "100 Continue" when the handler first reads a body
// whose client expects it.
func (c *conn) sendContinue() {
	if c.resp.committed {
		return
	}
	c.out = append(c.out, "HTTP/1.1 100 Continue\r\n\r\n"...)
	c.flush()
}

// hasToken is net/http's: token appears in v, case-insensitively, between
// boundaries (start, end, space, comma, tab).
func hasToken(v, token string) bool {
	if len(token) > len(v) || token == "" {
		return false
	}
	if v == token {
		return true
	}
	for sp := 0; sp <= len(v)-len(token); sp++ {
		if b := v[sp]; b != token[0] && b|0x20 != token[0] {
			continue
		}
		if sp > 0 && !isTokenBoundary(v[sp-1]) {
			continue
		}
		if end := sp + len(token); end != len(v) && !isTokenBoundary(v[end]) {
			continue
		}
		if equalFold(v[sp:sp+len(token)], token) {
			return true
		}
	}
	return false
}

func isTokenBoundary(b byte) bool { return b == ' ' || b == ',' || b == '\t' }

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// hijack hands the connection over: pending responses are written and the
// deadlines cleared first.
func (c *conn) hijack() (net.Conn, *bufio.ReadWriter, error) {
	if c.hijacked {
		return nil, nil, http.ErrHijacked
	}
	if w := &c.resp; w.wroteHeader && !w.committed {
		// As net/http: a status given before Hijack goes out first, the
		// 101 of an upgrade above all (coder/websocket writes its 101
		// with WriteHeader, then hijacks).
		w.commit()
	}
	if !c.flush() {
		return nil, nil, c.werr
	}
	c.hijacked = true
	c.state.Store(stateClosed)
	c.srv.untrack(c)
	_ = c.nc.SetDeadline(time.Time{})
	return c.nc, bufio.NewReadWriter(c.br, bufio.NewWriter(c.nc)), nil
}
