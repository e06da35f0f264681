package plinth

// The differential harness of the engine: the same raw bytes are sent over
// loopback to plinth.New() served by App.Serve on net/http ("std") and on
// Plinth's own engine ("fast"); what the client received (the sequence of
// statuses, whether the server closed) and what the handler saw (every
// field of the *http.Request net/http hands a handler) must be the same.
//
// A case ends when the server closed the connection, or when it is
// demonstrably waiting for more bytes: it is blocked in a Read that began
// after its last Write, the client has received every byte it wrote, every
// handler that returned has had its response head read, and no handler is
// running other than one blocked reading the body. No case waits for a
// timer, so the whole corpus runs in a few seconds.

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth/internal/syncbuf"
)

// engineNames are the engines every test of the engine runs on.
var engineNames = []string{"std", "fast"}

// tapConn is the server's side of a connection: it records whether the
// server is blocked in a Read, and in which order reads and writes
// happened.
type tapConn struct {
	net.Conn
	mu        sync.Mutex
	seq       uint64
	reading   bool
	readSeq   uint64 // seq when the current (or last) Read began
	writeSeq  uint64 // seq when the last Write ended
	written   int64
	read      int64
	closedSrv bool
}

func (c *tapConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	c.seq++
	c.reading, c.readSeq = true, c.seq
	c.mu.Unlock()
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.reading = false
	c.read += int64(n)
	c.seq++
	c.mu.Unlock()
	return n, err
}

func (c *tapConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.mu.Lock()
	c.written += int64(n)
	c.seq++
	c.writeSeq = c.seq
	c.mu.Unlock()
	return n, err
}

func (c *tapConn) Close() error {
	c.mu.Lock()
	c.closedSrv = true
	c.mu.Unlock()
	return c.Conn.Close()
}

// CloseWrite keeps net/http's lingering close.
func (c *tapConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// state is a snapshot: the server waits for input (idle), and how far.
func (c *tapConn) state() (idle bool, seq uint64, written, read int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reading && c.readSeq > c.writeSeq, c.seq, c.written, c.read
}

// connSeen is what the handler saw on one connection.
type connSeen struct {
	obs      []string
	active   int // handlers running
	inBody   int // of which blocked in Body.Read
	finished int // handlers returned
}

// diffServer is one App served on one engine, with its taps.
type diffServer struct {
	engine string
	addr   string
	logs   *syncbuf.Buffer
	mu     sync.Mutex
	taps   map[string]*tapConn  // by client address
	seen   map[string]*connSeen // by client address
}

type tapListener struct {
	net.Listener
	s *diffServer
}

func (l tapListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &tapConn{Conn: c}
	l.s.mu.Lock()
	l.s.taps[c.RemoteAddr().String()] = tc
	l.s.mu.Unlock()
	return tc, nil
}

func (s *diffServer) conn(addr string) *connSeen {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.seen[addr]
	if cs == nil {
		cs = &connSeen{}
		s.seen[addr] = cs
	}
	return cs
}

// bodyTap marks the handler as blocked on input while in Body.Read.
type bodyTap struct {
	io.ReadCloser
	s  *diffServer
	cs *connSeen
}

func (b bodyTap) Read(p []byte) (int, error) {
	b.s.mu.Lock()
	b.cs.inBody++
	b.s.mu.Unlock()
	n, err := b.ReadCloser.Read(p)
	b.s.mu.Lock()
	b.cs.inBody--
	b.s.mu.Unlock()
	return n, err
}

// observe renders what a handler sees of r, body read to the end.
func observe(r *http.Request, body []byte, bodyErr error) string {
	var b strings.Builder
	u := r.URL
	fmt.Fprintf(&b, "method=%q requestURI=%q proto=%q major=%d minor=%d host=%q close=%v\n",
		r.Method, r.RequestURI, r.Proto, r.ProtoMajor, r.ProtoMinor, r.Host, r.Close)
	if u != nil {
		fmt.Fprintf(&b, "url=%q scheme=%q opaque=%q user=%q host=%q path=%q rawPath=%q forceQuery=%v rawQuery=%q fragment=%q omitHost=%v\n",
			u.String(), u.Scheme, u.Opaque, u.User.String(), u.Host, u.Path, u.RawPath, u.ForceQuery, u.RawQuery, u.Fragment, u.OmitHost)
	} else {
		b.WriteString("url=nil\n")
	}
	fmt.Fprintf(&b, "contentLength=%d transferEncoding=%q\n", r.ContentLength, r.TransferEncoding)
	writeHeader(&b, "header", r.Header)
	writeHeader(&b, "trailer", r.Trailer)
	sum := sha256.Sum256(body)
	fmt.Fprintf(&b, "body=%d:%s bodyErr=%v\n", len(body), hex.EncodeToString(sum[:8]), bodyErr != nil)
	return b.String()
}

func writeHeader(b *strings.Builder, what string, h http.Header) {
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range h {
			if !yield(k) {
				return
			}
		}
	})
	fmt.Fprintf(b, "%s(%d):", what, len(h))
	for _, k := range keys {
		if what == "header" && (k == "X-Request-Id") {
			continue
		}
		fmt.Fprintf(b, " %q=%q", k, h[k])
	}
	b.WriteByte('\n')
}

// handler records what it saw, keyed by the client's address, and echoes
// the method (the client's parser needs it for HEAD) and a digest.
func (s *diffServer) handler(w http.ResponseWriter, r *http.Request) {
	cs := s.conn(r.RemoteAddr)
	s.mu.Lock()
	cs.active++
	s.mu.Unlock()
	var body []byte
	var err error
	if !strings.HasPrefix(r.URL.Path, "/noread") { // "/noread...": the handler leaves the body unread
		body, err = io.ReadAll(bodyTap{r.Body, s, cs})
	}
	o := observe(r, body, err)
	s.mu.Lock()
	cs.obs = append(cs.obs, o)
	cs.active--
	cs.finished++
	s.mu.Unlock()
	sum := sha256.Sum256([]byte(o))
	w.Header().Set("X-Diff-Method", r.Method)
	w.Header().Set("Content-Type", "text/plain")
	io.WriteString(w, hex.EncodeToString(sum[:8]))
	if strings.HasPrefix(r.URL.Path, "/big") { // "/big...": a response beyond any write buffer
		for range 64 {
			io.WriteString(w, strings.Repeat("0123456789abcdef", 64))
		}
	}
}

// startDiffServer serves plinth.New() with the catch-all recording
// handler on engine, until t ends.
func startDiffServer(t testing.TB, engine string, configure func(*Config)) *diffServer {
	t.Helper()
	s := &diffServer{engine: engine, logs: &syncbuf.Buffer{}, taps: map[string]*tapConn{}, seen: map[string]*connSeen{}}
	app := New()
	app.Logger = quietLogger()
	cfg := Config{Logger: slog.New(slog.NewTextHandler(s.logs, nil)), ShutdownTimeout: 2 * time.Second}
	if configure != nil {
		configure(&cfg)
	}
	app.Config = cfg
	app.Config.Engine = engine
	app.Handle("/", http.HandlerFunc(s.handler))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, tapListener{ln, s}) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(forever):
			t.Errorf("%s: Serve did not return", engine)
		}
	})
	// The startup line names the engine.
	deadline := time.Now().Add(soon)
	for !strings.Contains(s.logs.String(), "plinth: serving") {
		if time.Now().After(deadline) {
			t.Fatalf("%s: no startup line", engine)
		}
		time.Sleep(2 * time.Millisecond)
	}
	if !strings.Contains(s.logs.String(), "engine="+engine) {
		t.Fatalf("engine %q: the startup line does not name it, so it is not serving:\n%s", engine, s.logs.String())
	}
	return s
}

// outcome is what one case produced on one engine.
type outcome struct {
	statuses []string // status codes of the responses, 1xx included
	closed   bool     // the server closed the connection
	stuck    bool     // neither closed nor provably waiting within the deadline
	obs      []string // what each handler saw
}

func (o outcome) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "statuses=%v closed=%v stuck=%v handlers=%d\n", o.statuses, o.closed, o.stuck, len(o.obs))
	for i, s := range o.obs {
		fmt.Fprintf(&b, "  [%d] %s", i, strings.ReplaceAll(s, "\n", "\n      "))
		b.WriteByte('\n')
	}
	return b.String()
}

// refused reports the number of requests served (handler calls).
func (o outcome) served() int { return len(o.obs) }

// countingConn counts the bytes the client received.
type countingConn struct {
	net.Conn
	n atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// responseReader parses responses as they arrive, recording each status as
// soon as its head is read.
type responseReader struct {
	mu       sync.Mutex
	statuses []string
	finals   int // non-1xx heads
	done     bool
}

func (rr *responseReader) run(c io.Reader) {
	br := bufio.NewReader(c)
	defer func() {
		rr.mu.Lock()
		rr.done = true
		rr.mu.Unlock()
	}()
	tp := textproto.NewReader(br)
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		proto, rest, _ := strings.Cut(line, " ")
		code, _, _ := strings.Cut(rest, " ")
		if !strings.HasPrefix(proto, "HTTP/1.") || len(code) != 3 {
			rr.add("garbage:" + strconv.Quote(line))
			return
		}
		h, err := tp.ReadMIMEHeader()
		if err != nil {
			rr.add(code + "+badhead")
			return
		}
		st, _ := strconv.Atoi(code)
		rr.add(code)
		switch {
		case st >= 100 && st < 200, st == 204, st == 304, h.Get("X-Diff-Method") == "HEAD":
			continue
		case strings.EqualFold(h.Get("Transfer-Encoding"), "chunked"):
			if _, err := io.Copy(io.Discard, httputil.NewChunkedReader(br)); err != nil {
				return
			}
			if _, err := tp.ReadMIMEHeader(); err != nil { // trailer
				return
			}
		case h.Get("Content-Length") != "":
			n, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64)
			if err != nil {
				rr.add("badlength")
				return
			}
			if _, err := io.CopyN(io.Discard, br, n); err != nil {
				return
			}
		default:
			io.Copy(io.Discard, br)
			return
		}
	}
}

func (rr *responseReader) add(s string) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.statuses = append(rr.statuses, s)
	if len(s) == 3 && s[0] != '1' {
		rr.finals++
	}
}

// clientAddrs numbers the client addresses 127.x.y.z (from 127.0.1.0).
var clientAddrs atomic.Uint32

func init() { clientAddrs.Store(256) }

// exchange sends raw on a new connection to s and returns the outcome.
func (s *diffServer) exchange(t testing.TB, raw []byte) outcome {
	t.Helper()
	// Each exchange comes from its own loopback address, so that the
	// client address keys one connection for the life of the process.
	n := clientAddrs.Add(1)
	local := &net.TCPAddr{IP: net.IPv4(127, byte(n>>16), byte(n>>8), byte(n))}
	d := net.Dialer{Timeout: soon, LocalAddr: local}
	nc, err := d.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	c := &countingConn{Conn: nc}
	defer c.Close()
	key := c.LocalAddr().String()
	rr := &responseReader{}
	readDone := make(chan struct{})
	go func() { rr.run(c); close(readDone) }()
	// Write in the background: a server that stops reading must not block
	// the harness.
	var wrote atomic.Bool
	go func() {
		_ = c.SetWriteDeadline(time.Now().Add(soon))
		c.Write(raw)
		wrote.Store(true)
	}()
	var out outcome
	// Only a case that neither ends nor waits takes this long: generous, so
	// that a loaded machine (-race, 2 cores) is never taken for a difference.
	deadline := time.Now().Add(forever)
	var lastSeq uint64
	stable := 0
	for {
		if time.Now().After(deadline) {
			out.stuck = true
			break
		}
		time.Sleep(3 * time.Millisecond)
		s.mu.Lock()
		tap := s.taps[key]
		cs := s.seen[key]
		var busy bool
		var finished int
		if cs != nil {
			busy = cs.active > cs.inBody
			finished = cs.finished
		}
		s.mu.Unlock()
		if tap == nil {
			continue
		}
		rr.mu.Lock()
		readerDone, finals := rr.done, rr.finals
		rr.mu.Unlock()
		if readerDone {
			// The server closed (or sent what the client cannot parse).
			out.closed = true
			break
		}
		idle, seq, written, read := tap.state()
		if idle && !busy && wrote.Load() && read == int64(len(raw)) && written == c.n.Load() && finals >= finished {
			if seq == lastSeq {
				stable++
			} else {
				stable = 0
			}
			lastSeq = seq
			if stable >= 3 {
				break
			}
		} else {
			stable = 0
		}
	}
	c.Close()
	<-readDone
	// Handlers blocked in a body read end now that the client is gone.
	end := time.Now().Add(soon)
	for {
		s.mu.Lock()
		cs := s.seen[key]
		active := cs != nil && cs.active > 0
		if !active {
			if cs != nil {
				out.obs = slices.Clone(cs.obs)
			}
			s.mu.Unlock()
			break
		}
		s.mu.Unlock()
		if time.Now().After(end) {
			t.Errorf("%s: a handler still runs %s after the client closed", s.engine, soon)
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	rr.mu.Lock()
	out.statuses = slices.Clone(rr.statuses)
	rr.mu.Unlock()
	return out
}

// diffCase is one raw exchange of the corpus.
type diffCase struct {
	name string
	raw  string
}

// verdict compares the engine's outcome with net/http's.
func verdict(std, fast outcome) (same bool, servesMore bool) {
	same = slices.Equal(std.statuses, fast.statuses) && std.closed == fast.closed &&
		std.stuck == fast.stuck && slices.Equal(std.obs, fast.obs)
	if fast.served() > std.served() {
		servesMore = true
	}
	for i := range min(len(std.obs), len(fast.obs)) {
		if std.obs[i] != fast.obs[i] {
			servesMore = true // the engine handed over a request net/http would not have
		}
	}
	return same, servesMore
}

// earlyRefusal reports whether one side refused, at once, a request that
// the other (waiter, on server ws) is still waiting to read to the end:
// the same statuses and handler calls, then only 4xx/5xx and a close on
// the refusing side, while the waiter waits for more bytes. It is not a
// difference if the waiter refuses the same request too once the head is
// finished (probe: raw and a blank line). net/http refuses a bad request
// line before the headers arrive, the engine a bad header line as it
// arrives: both refuse.
func earlyRefusal(t testing.TB, ws *diffServer, raw []byte, waiter, refuser outcome) bool {
	s, e := waiter, refuser
	if s.closed || s.stuck || !e.closed || !slices.Equal(s.obs, e.obs) || len(e.statuses) <= len(s.statuses) ||
		!slices.Equal(e.statuses[:len(s.statuses)], s.statuses) {
		return false
	}
	for _, st := range e.statuses[len(s.statuses):] {
		if len(st) != 3 || st[0] < '4' {
			return false
		}
	}
	probe := ws.exchange(t, append(slices.Clip(raw), "\r\n\r\n"...))
	if !probe.closed || len(probe.obs) != len(s.obs) || len(probe.statuses) != len(e.statuses) ||
		!slices.Equal(probe.statuses[:len(s.statuses)], s.statuses) {
		return false
	}
	for _, st := range probe.statuses[len(s.statuses):] {
		if len(st) != 3 || st[0] < '4' { // it refuses too, maybe with another 4xx/5xx
			return false
		}
	}
	return true
}

// quoteRaw shows a raw request readably in a failure.
func quoteRaw(raw string) string {
	if len(raw) > 600 {
		return strconv.Quote(raw[:300]) + fmt.Sprintf(" ...(%d bytes)... ", len(raw)-600) + strconv.Quote(raw[len(raw)-300:])
	}
	return strconv.Quote(raw)
}
