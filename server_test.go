package plinth

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/plinth-go/plinth/internal/syncbuf"
)

// The tests in this file run real servers on 127.0.0.1. They assert that
// things happen before generous deadlines (seconds, for timeouts of a few
// hundred milliseconds), or have not happened well after a timeout would
// have fired; never how fast anything is.

const (
	soon    = 5 * time.Second // "before a generous deadline"
	forever = 15 * time.Second
)

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// testConfig is a quiet Config whose grace period is short enough that a
// stuck drain fails a test rather than hanging it.
func testConfig() Config {
	return Config{Logger: quietLogger(), ShutdownTimeout: soon}
}

func listenLocal(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// freePort returns a port that was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	ln := listenLocal(t)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	return port
}

// served is an App serving on a listener until its test ends.
type served struct {
	addr   string
	url    string
	cancel context.CancelFunc
	done   chan struct{} // closed when Serve returned
	err    error         // Serve's result, once done is closed
}

// serveApp runs app.Serve on ln in the background. The test's cleanup
// cancels it and waits for Serve to return.
func serveApp(t *testing.T, app *App, ln net.Listener) *served {
	t.Helper()
	if app.Logger == nil {
		app.Logger = quietLogger()
	}
	if app.Config.Logger == nil {
		app.Config.Logger = quietLogger()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{addr: ln.Addr().String(), cancel: cancel, done: make(chan struct{})}
	s.url = "http://" + s.addr
	go func() {
		s.err = app.Serve(ctx, ln)
		close(s.done)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(forever):
			t.Errorf("Serve did not return after its context was cancelled")
		}
	})
	return s
}

// wait returns Serve's result, failing the test if it does not come within d.
func (s *served) wait(t *testing.T, d time.Duration) error {
	t.Helper()
	select {
	case <-s.done:
		return s.err
	case <-time.After(d):
		t.Fatalf("Serve has not returned after %s", d)
		return nil
	}
}

func newClient(t *testing.T, keepAlive bool) *http.Client {
	tr := &http.Transport{DisableKeepAlives: !keepAlive, MaxIdleConnsPerHost: 100}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: forever}
}

// result is a response read to the end, or the error that stopped it.
type result struct {
	status int
	header http.Header
	close  bool // the response said "Connection: close"
	body   string
	err    error
}

func do(ctx context.Context, c *http.Client, method, url string, body io.Reader) result {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return result{err: err}
	}
	resp, err := c.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	closeHdr := resp.Close || strings.EqualFold(resp.Header.Get("Connection"), "close")
	return result{status: resp.StatusCode, header: resp.Header, close: closeHdr, body: string(b), err: err}
}

func mustGet(t *testing.T, c *http.Client, url string, status int) result {
	t.Helper()
	r := do(t.Context(), c, "GET", url, nil)
	if r.err != nil {
		t.Fatalf("GET %s: %v", url, r.err)
	}
	if r.status != status {
		t.Fatalf("GET %s: %d %q, want %d", url, r.status, r.body, status)
	}
	return r
}

func dialRaw(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, soon)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func writeRaw(t *testing.T, c net.Conn, s string) {
	t.Helper()
	_ = c.SetWriteDeadline(time.Now().Add(soon))
	if _, err := io.WriteString(c, s); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// readResponse reads one response from a raw connection, waiting at most d.
func readResponse(c net.Conn, br *bufio.Reader, d time.Duration) (*http.Response, string, error) {
	_ = c.SetReadDeadline(time.Now().Add(d))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, "", err
	}
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// waitClosed reads c until the server closes it (EOF or reset), and fails if
// that does not happen within d.
func waitClosed(c net.Conn, d time.Duration) error {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	if isTimeout(err) {
		return fmt.Errorf("still open after %s", d)
	}
	return nil
}

// eventually polls cond every 10ms until it holds, failing after d.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(soon):
		t.Fatalf("%s: not within %s", what, soon)
		var zero T
		return zero
	}
}

// closer closes a channel once, from a test or its cleanup.
type closer struct {
	ch   chan struct{}
	once sync.Once
}

func newCloser(t *testing.T) *closer {
	c := &closer{ch: make(chan struct{})}
	t.Cleanup(c.close)
	return c
}

func (c *closer) close() { c.once.Do(func() { close(c.ch) }) }

// spyListener counts the connections it hands out that are still open.
type spyListener struct {
	net.Listener
	open     atomic.Int64
	accepted atomic.Int64
}

func (l *spyListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.open.Add(1)
	l.accepted.Add(1)
	return &spyConn{Conn: c, l: l}, nil
}

type spyConn struct {
	net.Conn
	l    *spyListener
	once sync.Once
}

func (c *spyConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}

// CloseWrite keeps net/http's lingering close working through the spy.
func (c *spyConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// trickler is a raw connection that sends a request line and then one
// header line at a time, never finishing the header block.
type trickler struct {
	net.Conn
	lines  atomic.Int64
	failed atomic.Bool // a write failed: the server closed the connection
}

func trickleHeaders(t *testing.T, addr string, every time.Duration) *trickler {
	t.Helper()
	tr := &trickler{Conn: dialRaw(t, addr)}
	writeRaw(t, tr, "GET / HTTP/1.1\r\nHost: slow\r\n")
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if _, err := fmt.Fprintf(tr.Conn, "X-Slow-%d: 1\r\n", i); err != nil {
				tr.failed.Store(true)
				return
			}
			tr.lines.Add(1)
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
	return tr
}

func hello(c *Ctx) error { return c.Text(http.StatusOK, "hello") }

// countBody reads the whole body and answers its length; a read error is
// returned (and so rendered) after being reported on errs, if not nil.
func countBody(errs chan<- error) HandlerFunc {
	return func(c *Ctx) error {
		n, err := io.Copy(io.Discard, c.Request().Body)
		if err != nil {
			if errs != nil {
				select {
				case errs <- err:
				default:
				}
			}
			return err
		}
		return c.Text(http.StatusOK, strconv.FormatInt(n, 10))
	}
}

// onlyReader hides a reader's type, so that the client cannot learn the
// length and sends the body chunked.
type onlyReader struct{ io.Reader }

func TestServerSlowloris(t *testing.T) {
	t.Parallel()
	start := func(timeout time.Duration) *served {
		app := New()
		app.Config = testConfig()
		app.Config.HeaderReadTimeout = timeout
		app.Get("/", hello)
		return serveApp(t, app, listenLocal(t))
	}
	guarded := start(300 * time.Millisecond)
	unguarded := start(-1)

	g := trickleHeaders(t, guarded.addr, 100*time.Millisecond)
	u := trickleHeaders(t, unguarded.addr, 100*time.Millisecond)
	began := time.Now()

	// Normal clients keep being served during the attack.
	client := newClient(t, false)
	if r := mustGet(t, client, guarded.url+"/", 200); r.body != "hello" {
		t.Errorf("normal client during the attack: %q", r.body)
	}

	if err := waitClosed(g, soon); err != nil {
		t.Errorf("HeaderReadTimeout 300ms: the trickling connection is %v", err)
	}
	mustGet(t, client, guarded.url+"/", 200)

	// With the timeout off, the same attack goes on well past 300ms.
	if d := 1500*time.Millisecond - time.Since(began); d > 0 {
		time.Sleep(d)
	}
	_ = u.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	n, err := u.Read(make([]byte, 1))
	if !isTimeout(err) || u.failed.Load() {
		t.Errorf("HeaderReadTimeout off: the trickling connection was answered or closed after %s (read %d, %v; write failed %v)",
			time.Since(began).Round(time.Millisecond), n, err, u.failed.Load())
	}
	if u.lines.Load() < 3 {
		t.Errorf("the trickle only sent %d header lines", u.lines.Load())
	}
}

// TestServerHeaderBlockLimit: the request line and headers may take exactly
// MaxHeaderBytes bytes, CRLFs included, and one byte more is a 431
// (net/http reads 4096 bytes past its own limit, which Plinth lowers by
// as much).
func TestServerHeaderBlockLimit(t *testing.T) {
	t.Parallel()
	const limit = 8 << 10
	app := New()
	app.Config = testConfig()
	app.Config.MaxHeaderBytes = limit
	app.Get("/", hello)
	s := serveApp(t, app, listenLocal(t))

	// send writes a header block of exactly size bytes.
	send := func(size int) (*http.Response, string, error) {
		c := dialRaw(t, s.addr)
		var b strings.Builder
		b.WriteString("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n")
		for i := 0; b.Len()+2 < size; i++ {
			line := fmt.Sprintf("X-Pad-%d: ", i)
			n := min(200, size-2-b.Len()-len(line)-2)
			if n < 1 {
				// Too little room for another line: lengthen the last one.
				t.Fatalf("cannot build a block of %d bytes", size)
			}
			b.WriteString(line + strings.Repeat("a", n) + "\r\n")
		}
		b.WriteString("\r\n")
		if b.Len() != size {
			t.Fatalf("built a block of %d bytes, want %d", b.Len(), size)
		}
		writeRaw(t, c, b.String())
		return readResponse(c, bufio.NewReader(c), soon)
	}
	for _, size := range []int{2 << 10, limit - 200, limit} {
		resp, body, err := send(size)
		if err != nil || resp.StatusCode != 200 || body != "hello" {
			t.Errorf("%d bytes of headers (limit %d): %v %v %q, want 200", size, limit, resp, err, body)
		}
	}
	for _, size := range []int{limit + 1, limit + 100, limit + 4096, 16 << 10} {
		resp, _, err := send(size)
		if err != nil {
			// The 431 has no Content-Length: it ends at the server's FIN. A
			// reset instead means the connection was closed without CloseWrite.
			t.Fatalf("%d bytes of headers: %v", size, err)
		}
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("%d bytes of headers with MaxHeaderBytes %d: %d, want 431", size, limit, resp.StatusCode)
		}
	}
	// A limit net/http cannot honour exactly is refused at startup.
	if _, err := (Config{MaxHeaderBytes: 4096}).withEnv(envOf(nil)); err == nil || !strings.Contains(err.Error(), "PLINTH_MAX_HEADER_BYTES") {
		t.Errorf("MaxHeaderBytes 4096: %v, want an error naming PLINTH_MAX_HEADER_BYTES", err)
	}
}

// bodyApp serves POST /upload (limit from Config: 1 KiB), /big/upload (8 KiB
// by SetBodyLimit) and /free/upload (no limit), all counting the body.
func bodyApp(t *testing.T, calls *atomic.Int64, errs chan<- error) *served {
	app := New()
	app.Config = testConfig()
	app.Config.MaxBodyBytes = 1024
	h := func(c *Ctx) error {
		calls.Add(1)
		return countBody(errs)(c)
	}
	app.Post("/upload", h)
	big := app.Group("/big")
	big.SetBodyLimit(8 << 10)
	big.Post("/upload", h)
	free := app.Group("/free")
	free.SetBodyLimit(Off)
	free.Post("/upload", h)
	return serveApp(t, app, listenLocal(t))
}

func checkProblem413(t *testing.T, what string, status int, contentType, body string) {
	t.Helper()
	if status != http.StatusRequestEntityTooLarge {
		t.Errorf("%s: status %d %q, want 413", what, status, body)
		return
	}
	if contentType != "application/problem+json" {
		t.Errorf("%s: Content-Type %q", what, contentType)
	}
	var p struct{ Status int }
	if err := json.Unmarshal([]byte(body), &p); err != nil || p.Status != 413 {
		t.Errorf("%s: body %q is not a 413 problem (%v)", what, body, err)
	}
}

func TestServerBodyLimit(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	errs := make(chan error, 10)
	s := bodyApp(t, &calls, errs)

	// A declared length over the limit is refused at once: the response
	// comes while the client has sent only a few bytes of the body, and
	// the handler never runs. The body read timeout (10s by default) is
	// longer than the wait, so a server reading the body would be caught.
	for _, tc := range []struct {
		name, extra string
		length      int
	}{
		{"10 MB declared", "", 10 << 20},
		{"slightly over", "", 2000},
		{"Expect: 100-continue", "Expect: 100-continue\r\n", 10 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := calls.Load()
			c := dialRaw(t, s.addr)
			req := fmt.Sprintf("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n%s\r\n", tc.length, tc.extra)
			if tc.extra == "" {
				req += "abc"
			}
			writeRaw(t, c, req)
			resp, body, err := readResponse(c, bufio.NewReader(c), soon)
			if err != nil {
				t.Fatalf("no response while the body is incomplete: %v", err)
			}
			checkProblem413(t, tc.name, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			if n := calls.Load() - before; n != 0 {
				t.Errorf("the handler ran %d times", n)
			}
		})
	}

	client := newClient(t, true)
	t.Run("chunked", func(t *testing.T) {
		r := do(t.Context(), client, "POST", s.url+"/upload", onlyReader{bytes.NewReader(make([]byte, 4096))})
		if r.err != nil {
			t.Fatal(r.err)
		}
		checkProblem413(t, "chunked body of 4096 bytes", r.status, r.header.Get("Content-Type"), r.body)
		err := recv(t, errs, "the handler's read error")
		if _, ok := errors.AsType[*http.MaxBytesError](err); !ok {
			t.Errorf("the handler's read failed with %v, want *http.MaxBytesError", err)
		}
	})

	t.Run("per group", func(t *testing.T) {
		for _, tc := range []struct {
			path   string
			size   int
			status int
		}{
			{"/upload", 1000, 200},
			{"/upload", 4000, 413},
			{"/big/upload", 4000, 200},
			{"/big/upload", 9000, 413},
			{"/free/upload", 100 << 10, 200},
		} {
			for _, chunked := range []bool{false, true} {
				var body io.Reader = bytes.NewReader(make([]byte, tc.size))
				if chunked {
					body = onlyReader{body}
				}
				r := do(t.Context(), client, "POST", s.url+tc.path, body)
				if r.err != nil {
					t.Errorf("%s %d bytes (chunked %v): %v", tc.path, tc.size, chunked, r.err)
					continue
				}
				if r.status != tc.status || tc.status == 200 && r.body != strconv.Itoa(tc.size) {
					t.Errorf("%s %d bytes (chunked %v): %d %q, want %d", tc.path, tc.size, chunked, r.status, r.body, tc.status)
				}
			}
		}
	})
}

// Config.MaxBodyBytes must apply even when the App was built before Serve,
// as Build's doc recommends.
func TestServerBodyLimitAfterBuild(t *testing.T) {
	for _, tc := range []struct {
		name   string
		app    *App
		limit  int64
		size   int
		status int
	}{
		{"Bare with a limit", Bare(), 1024, 4000, 413},
		{"New with the limit off", New(), -1, 3 << 20, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := tc.app
			app.Config = testConfig()
			app.Config.MaxBodyBytes = tc.limit
			app.Post("/upload", countBody(nil))
			app.Build()
			s := serveApp(t, app, listenLocal(t))
			r := do(t.Context(), newClient(t, false), "POST", s.url+"/upload", bytes.NewReader(make([]byte, tc.size)))
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.status != tc.status {
				t.Errorf("MaxBodyBytes %d, App built before Serve, %d bytes: %d %q, want %d", tc.limit, tc.size, r.status, r.body, tc.status)
			}
		})
	}
}

// pacedReader yields size bytes, chunk bytes per Read, sleeping every
// between reads.
type pacedReader struct {
	left, chunk int
	every       time.Duration
	started     bool
}

func (r *pacedReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	if r.started {
		time.Sleep(r.every)
	}
	r.started = true
	n := min(len(p), r.chunk, r.left)
	clear(p[:n])
	r.left -= n
	return n, nil
}

func TestServerSlowBody(t *testing.T) {
	t.Parallel()
	app := New()
	app.Config = testConfig()
	app.Config.BodyReadTimeout = 300 * time.Millisecond
	app.Config.MinBodyRate = 1000
	readErrs := make(chan error, 1)
	app.Post("/read", countBody(readErrs))
	app.Post("/work", func(c *Ctx) error {
		if _, err := io.ReadAll(c.Request().Body); err != nil {
			return err
		}
		// Work for twice the body timeout after the body is in.
		select {
		case <-c.Context().Done():
			return Errorf(http.StatusServiceUnavailable, "request context cancelled while working: %v", context.Cause(c.Context()))
		case <-time.After(600 * time.Millisecond):
		}
		return c.Text(http.StatusOK, "worked")
	})
	s := serveApp(t, app, listenLocal(t))

	t.Run("trickle", func(t *testing.T) {
		t.Parallel()
		c := dialRaw(t, s.addr)
		writeRaw(t, c, "POST /read HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
		stop, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			for range 100 {
				select {
				case <-stop:
					return
				case <-time.After(200 * time.Millisecond):
				}
				if _, err := c.Write([]byte{'x'}); err != nil {
					return
				}
			}
		}()
		defer func() { close(stop); <-done }()
		err := recv(t, readErrs, "the handler's read of a trickled body failing")
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("the handler's read failed with %v, want a deadline error", err)
		}
		if err := waitClosed(c, soon); err != nil {
			t.Errorf("the trickling connection is %v", err)
		}
	})

	t.Run("steady", func(t *testing.T) {
		t.Parallel()
		// 20 KB at about 20 KB/s in 500-byte chunks: slow, but 20 times
		// MinBodyRate.
		body := onlyReader{&pacedReader{left: 20000, chunk: 500, every: 25 * time.Millisecond}}
		r := do(t.Context(), newClient(t, false), "POST", s.url+"/read", body)
		if r.err != nil || r.status != 200 || r.body != "20000" {
			t.Errorf("steady upload: %d %q %v, want 200 \"20000\"", r.status, r.body, r.err)
		}
	})

	t.Run("work after the body", func(t *testing.T) {
		t.Parallel()
		r := do(t.Context(), newClient(t, false), "POST", s.url+"/work", strings.NewReader("hello"))
		if r.err != nil || r.status != 200 || r.body != "worked" {
			t.Errorf("a handler working past BodyReadTimeout after reading its body: %d %q %v", r.status, r.body, r.err)
		}
	})
}

// holder is an App whose GET /hold handlers block until released one by
// one (or until the test ends), and GET / answers at once.
type holder struct {
	app     *App
	started chan struct{} // a token per handler that started holding
	release chan struct{} // a token releases one handler
}

func newHolder(t *testing.T, cfg Config) *holder {
	h := &holder{app: New(), started: make(chan struct{}, 100), release: make(chan struct{})}
	h.app.Config = cfg
	stop := newCloser(t)
	h.app.Get("/hold", func(c *Ctx) error {
		h.started <- struct{}{}
		select {
		case <-h.release:
		case <-stop.ch:
		}
		return c.Text(http.StatusOK, "held")
	})
	h.app.Get("/", hello)
	return h
}

// holdN starts n GET /hold requests on their own connections and waits for
// all n to be in the handler. Their results come on the returned channel
// once released. Without keepAlive the client asks for Connection: close.
func (h *holder) holdN(t *testing.T, s *served, n int, keepAlive bool) <-chan result {
	t.Helper()
	client := newClient(t, keepAlive)
	res := make(chan result, n)
	for range n {
		go func() { res <- do(t.Context(), client, "GET", s.url+"/hold", nil) }()
	}
	for i := range n {
		recv(t, h.started, fmt.Sprintf("held request %d in its handler", i+1))
	}
	return res
}

// releaseN releases n held handlers and checks their responses.
func (h *holder) releaseN(t *testing.T, res <-chan result, n int) {
	t.Helper()
	for range n {
		select {
		case h.release <- struct{}{}:
		case <-time.After(soon):
			t.Fatalf("no held handler to release")
		}
	}
	for i := range n {
		r := recv(t, res, "a held request completing")
		if r.err != nil || r.status != 200 || r.body != "held" {
			t.Errorf("held request %d: %d %q %v", i, r.status, r.body, r.err)
		}
	}
}

// flood holds limit connections busy on a server limited to limit
// connections, then opens 20 more: each must be refused (a 503, or closed)
// without waiting, while the held ones complete normally. It returns how
// many got the 503.
func flood(t *testing.T, h *holder, s *served, limit int) (refused503 int) {
	t.Helper()
	held := h.holdN(t, s, limit, false)
	var extra []net.Conn
	defer func() {
		for _, c := range extra {
			c.Close()
		}
	}()
	for i := range 20 {
		// The client sends nothing, so that the server's close cannot
		// turn into a reset that swallows the 503.
		c, err := net.DialTimeout("tcp", s.addr, soon)
		if err != nil {
			t.Errorf("extra connection %d: dial: %v", i, err)
			continue
		}
		extra = append(extra, c)
		resp, _, err := readResponse(c, bufio.NewReader(c), soon)
		switch {
		case err == nil && resp.StatusCode == http.StatusServiceUnavailable:
			refused503++
		case err == nil:
			t.Errorf("extra connection %d: status %d, want 503", i, resp.StatusCode)
		case isTimeout(err):
			t.Errorf("extra connection %d: neither answered nor closed within %s", i, soon)
			continue
		}
		if err := waitClosed(c, soon); err != nil {
			t.Errorf("extra connection %d: %v after the refusal", i, err)
		}
	}
	h.releaseN(t, held, limit)
	return refused503
}

func TestServerConnectionFlood(t *testing.T) {
	const limit = 4
	t.Run("Config.MaxConnections", func(t *testing.T) {
		cfg := testConfig()
		cfg.MaxConnections = limit
		h := newHolder(t, cfg)
		spy := &spyListener{Listener: listenLocal(t)}
		s := serveApp(t, h.app, spy)
		if n := flood(t, h, s, limit); n != 20 {
			t.Errorf("%d of 20 extra connections got the 503", n)
		}
		eventually(t, soon, "every connection closed", func() bool { return spy.open.Load() == 0 })
		// Every slot is free again: limit requests can be held at once.
		h.releaseN(t, h.holdN(t, s, limit, false), limit)
	})

	t.Run("limitListener counters", func(t *testing.T) {
		cfg := testConfig()
		cfg.MaxConnections = -1 // the test wraps the listener itself
		h := newHolder(t, cfg)
		spy := &spyListener{Listener: listenLocal(t)}
		ll := newLimitListener(spy, limit)
		s := serveApp(t, h.app, ll)
		flood(t, h, s, limit)
		eventually(t, soon, "active count back to 0", func() bool { return ll.active.Load() == 0 && spy.open.Load() == 0 })
		if n := ll.refused.Load(); n < 20 {
			t.Errorf("refused count %d, want at least 20", n)
		}
		h.releaseN(t, h.holdN(t, s, limit, false), limit)
	})
}

// The connection count stays exact under churn: connections closed by the
// client at every stage, panicking handlers, hijacked connections, refusals.
func TestServerConnectionChurn(t *testing.T) {
	t.Parallel()
	const limit = 4
	app := New()
	app.Config = testConfig()
	app.Config.MaxConnections = -1
	app.Get("/", hello)
	app.Get("/panic", func(c *Ctx) error { panic("boom") })
	app.Get("/hijack", func(c *Ctx) error {
		conn, brw, err := http.NewResponseController(c.Writer()).Hijack()
		if err != nil {
			return err
		}
		_, _ = brw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi")
		_ = brw.Flush()
		return conn.Close()
	})
	spy := &spyListener{Listener: listenLocal(t)}
	ll := newLimitListener(spy, limit)
	s := serveApp(t, app, ll)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 20 {
				c, err := net.DialTimeout("tcp", s.addr, soon)
				if err != nil {
					continue
				}
				switch k := (w + i) % 6; k {
				case 0, 1, 2:
					// A whole request, read to the end (or refused).
					path := [...]string{"/", "/panic", "/hijack"}[k]
					_, _ = io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
					_ = waitClosed(c, soon)
					c.Close()
				default:
					switch k {
					case 4:
						_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHo") // half a request
					case 5:
						_, _ = io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab") // half a body
					}
					c.Close()
				}
			}
		})
	}
	wg.Wait()
	eventually(t, soon, "active count back to 0 after the churn", func() bool {
		return ll.active.Load() == 0 && spy.open.Load() == 0
	})
	t.Logf("accepted %d, refused %d", spy.accepted.Load(), ll.refused.Load())
	// And the limit still admits limit connections at once.
	for range limit {
		c := dialRaw(t, s.addr) // kept open, idle, until the test ends
		writeRaw(t, c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, body, err := readResponse(c, bufio.NewReader(c), soon)
		if err != nil || resp.StatusCode != 200 || body != "hello" {
			t.Fatalf("after the churn: %v %v %q", resp, err, body)
		}
	}
	if n := ll.active.Load(); n != limit {
		t.Errorf("active %d with %d idle keep-alive connections open", n, limit)
	}
}

func TestServerPanickingHandler(t *testing.T) {
	app := New()
	app.Config = testConfig()
	app.Get("/panic", func(c *Ctx) error { panic("boom") })
	app.Get("/abort", func(c *Ctx) error {
		_, _ = c.Writer().Write([]byte("partial"))
		panic(http.ErrAbortHandler)
	})
	app.Get("/", hello)
	s := serveApp(t, app, listenLocal(t))
	client := newClient(t, false)
	for _, path := range []string{"/panic", "/abort"} {
		r := do(t.Context(), client, "GET", s.url+path, nil)
		if r.err == nil && r.status != http.StatusInternalServerError {
			t.Errorf("GET %s: %d %q, want a broken response or a 500", path, r.status, r.body)
		}
		if r := mustGet(t, client, s.url+"/", 200); r.body != "hello" {
			t.Errorf("after GET %s: %q", path, r.body)
		}
	}
}

func TestServerDrain(t *testing.T) {
	t.Parallel()
	const n = 5
	app := New()
	app.Config = testConfig()
	app.Config.DrainDelay = time.Second
	app.Config.ShutdownTimeout = 10 * time.Second
	var (
		mu     sync.Mutex
		events []string
	)
	record := func(e string) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}
	started := make(chan struct{}, n)
	release := newCloser(t)
	app.Get("/work", func(c *Ctx) error {
		started <- struct{}{}
		<-release.ch
		record("request")
		return c.Text(http.StatusOK, "done")
	})
	app.OnStop(func(context.Context) error { record("hook 1"); return nil })
	app.OnStop(func(context.Context) error { record("hook 2"); return nil })
	s := serveApp(t, app, listenLocal(t))

	client := newClient(t, true)
	res := make(chan result, n)
	for range n {
		go func() { res <- do(t.Context(), client, "GET", s.url+"/work", nil) }()
	}
	for i := range n {
		recv(t, started, fmt.Sprintf("request %d in flight", i+1))
	}
	probe := newClient(t, false)
	mustGet(t, probe, s.url+"/readyz", 200)
	select {
	case <-app.Draining():
		t.Fatal("Draining() closed before the drain")
	default:
	}

	s.cancel()
	recv(t, app.Draining(), "Draining() closed")
	if !app.health.draining.Load() {
		t.Error("health.draining is false after Draining() closed")
	}
	// Readiness answers 503 at once, while the listener is still open for
	// the drain delay; liveness stays 200.
	r := do(t.Context(), probe, "GET", s.url+"/readyz", nil)
	if r.err != nil {
		t.Fatalf("readiness probe during the drain delay: %v", r.err)
	}
	if r.status != http.StatusServiceUnavailable || r.header.Get("Content-Type") != "application/problem+json" || !strings.Contains(r.body, "draining") {
		t.Errorf("readiness during the drain: %d %q %q", r.status, r.header.Get("Content-Type"), r.body)
	}
	if r := do(t.Context(), probe, "GET", s.url+"/livez", nil); r.err != nil || r.status != 200 {
		t.Errorf("liveness during the drain: %d %v", r.status, r.err)
	}

	// Then the listener closes: new connections are refused.
	eventually(t, soon, "new connections refused", func() bool {
		c, err := net.DialTimeout("tcp", s.addr, time.Second)
		if err != nil {
			return true
		}
		c.Close()
		return false
	})
	select {
	case <-s.done:
		t.Fatalf("Serve returned (%v) with %d requests in flight", s.err, n)
	case <-time.After(50 * time.Millisecond):
	}

	release.close()
	for i := range n {
		r := recv(t, res, "an in-flight request completing")
		if r.err != nil || r.status != 200 || r.body != "done" {
			t.Errorf("in-flight request %d: %d %q %v", i, r.status, r.body, r.err)
		} else if !r.close {
			t.Errorf("in-flight request %d: no Connection: close (header %v)", i, r.header)
		}
	}
	if err := s.wait(t, soon); err != nil {
		t.Errorf("Serve after a clean drain: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"request", "request", "request", "request", "request", "hook 2", "hook 1"}
	if fmt.Sprint(events) != fmt.Sprint(want) {
		t.Errorf("events %q, want %q", events, want)
	}
}

// A response to a request that was in flight when the drain started carries
// "Connection: close" even when it is sent during the drain delay, as does
// one to a request arriving then on an idle keep-alive connection.
func TestServerDrainDelayConnectionClose(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.DrainDelay = time.Second
	h := newHolder(t, cfg)
	s := serveApp(t, h.app, listenLocal(t))
	idle := dialRaw(t, s.addr)
	br := bufio.NewReader(idle)
	writeRaw(t, idle, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, _, err := readResponse(idle, br, soon); err != nil || resp.Close {
		t.Fatalf("keep-alive request before the drain: %v %v", resp, err)
	}
	held := h.holdN(t, s, 1, true) // a keep-alive client: it does not ask for the close itself

	s.cancel()
	recv(t, h.app.Draining(), "Draining() closed")
	writeRaw(t, idle, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, _, err := readResponse(idle, br, soon)
	if err != nil || !resp.Close {
		t.Errorf("request on a keep-alive connection during the drain delay: %v, close %v", err, resp != nil && resp.Close)
	}
	h.release <- struct{}{}
	r := recv(t, held, "the in-flight request completing")
	if r.err != nil || r.status != 200 {
		t.Fatalf("in-flight request: %d %v", r.status, r.err)
	}
	if !r.close {
		t.Errorf("the response to a request in flight at the drain, sent during the drain delay, has no Connection: close (header %v)", r.header)
	}
	if err := s.wait(t, soon); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

func TestServerDrainGraceExpires(t *testing.T) {
	app := New()
	app.Config = testConfig()
	app.Config.ShutdownTimeout = 200 * time.Millisecond
	started := make(chan struct{}, 1)
	var hookRan atomic.Bool
	app.OnStop(func(context.Context) error { hookRan.Store(true); return nil })
	stuck := newCloser(t)
	app.Get("/stuck", func(c *Ctx) error {
		started <- struct{}{}
		<-stuck.ch
		return nil
	})
	s := serveApp(t, app, listenLocal(t))
	res := make(chan result, 1)
	go func() { res <- do(t.Context(), newClient(t, false), "GET", s.url+"/stuck", nil) }()
	recv(t, started, "the stuck request in its handler")

	s.cancel()
	err := s.wait(t, soon)
	if err == nil || !strings.Contains(err.Error(), "1 requests cut off") {
		t.Errorf("Serve with a handler outliving the grace period: %v, want \"1 requests cut off\"", err)
	}
	if r := recv(t, res, "the cut-off client's request ending"); r.err == nil {
		t.Errorf("the cut-off request got a response: %d %q", r.status, r.body)
	}
	if !hookRan.Load() {
		t.Error("the OnStop hook did not run after the grace period expired")
	}
}

func TestServerShutdownHookError(t *testing.T) {
	app := New()
	app.Config = testConfig()
	app.Get("/", hello)
	var deadline atomic.Bool
	app.OnStop(func(ctx context.Context) error {
		_, ok := ctx.Deadline()
		deadline.Store(ok)
		return errors.New("pool close failed")
	})
	s := serveApp(t, app, listenLocal(t))
	mustGet(t, newClient(t, false), s.url+"/", 200)
	s.cancel()
	if err := s.wait(t, soon); err == nil || !strings.Contains(err.Error(), "pool close failed") {
		t.Errorf("Serve with a failing hook: %v", err)
	}
	if !deadline.Load() {
		t.Error("the hook's context has no deadline")
	}
}

func TestServerListenerFailure(t *testing.T) {
	app := New()
	app.Config = testConfig()
	ln := listenLocal(t)
	s := serveApp(t, app, ln)
	ln.Close()
	if err := s.wait(t, soon); err == nil {
		t.Error("Serve returned nil after its listener failed")
	}
}

func TestServerProbes(t *testing.T) {
	t.Parallel()
	t.Run("defaults", func(t *testing.T) {
		app := New()
		app.Config = testConfig()
		s := serveApp(t, app, listenLocal(t))
		c := newClient(t, false)
		if r := mustGet(t, c, s.url+"/livez", 200); r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("liveness: Cache-Control %q", r.header.Get("Cache-Control"))
		}
		mustGet(t, c, s.url+"/readyz", 200)
	})

	t.Run("probe storm", func(t *testing.T) {
		app := New()
		app.Config = testConfig()
		app.Config.ReadinessCacheTTL = time.Minute
		var calls atomic.Int64
		app.ReadinessCheck("db", time.Second, func(ctx context.Context) error {
			calls.Add(1)
			time.Sleep(50 * time.Millisecond) // concurrent probes arrive meanwhile
			return nil
		})
		s := serveApp(t, app, listenLocal(t))
		c := newClient(t, false)
		res := make(chan result, 50)
		for range 50 {
			go func() { res <- do(t.Context(), c, "GET", s.url+"/readyz", nil) }()
		}
		for range 50 {
			if r := recv(t, res, "a readiness probe"); r.err != nil || r.status != 200 {
				t.Errorf("probe: %d %q %v", r.status, r.body, r.err)
			}
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("50 probes within the TTL ran the check %d times, want 1", n)
		}
	})

	t.Run("cache expires", func(t *testing.T) {
		app := New()
		app.Config = testConfig()
		app.Config.ReadinessCacheTTL = 50 * time.Millisecond
		var calls atomic.Int64
		app.ReadinessCheck("db", time.Second, func(ctx context.Context) error { calls.Add(1); return nil })
		s := serveApp(t, app, listenLocal(t))
		c := newClient(t, false)
		mustGet(t, c, s.url+"/readyz", 200)
		time.Sleep(300 * time.Millisecond)
		mustGet(t, c, s.url+"/readyz", 200)
		if n := calls.Load(); n != 2 {
			t.Errorf("two probes 300ms apart with a 50ms TTL ran the check %d times, want 2", n)
		}
	})

	t.Run("failing and hanging checks", func(t *testing.T) {
		app := New()
		app.Config = testConfig()
		hang := newCloser(t)
		app.ReadinessCheck("db", time.Second, func(ctx context.Context) error { return errors.New("connection refused") })
		app.ReadinessCheck("cache", 100*time.Millisecond, func(ctx context.Context) error { <-hang.ch; return nil })
		app.ReadinessCheck("queue", time.Second, func(ctx context.Context) error { return nil })
		s := serveApp(t, app, listenLocal(t))
		r := mustGet(t, newClient(t, false), s.url+"/readyz", 503)
		if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("Content-Type %q", ct)
		}
		var p struct {
			Status int
			Detail string
		}
		if err := json.Unmarshal([]byte(r.body), &p); err != nil || p.Status != 503 {
			t.Fatalf("body %q: %v", r.body, err)
		}
		if !strings.Contains(p.Detail, "db: connection refused") || !strings.Contains(p.Detail, "cache: timed out") || strings.Contains(p.Detail, "queue") {
			t.Errorf("detail %q, want the failing db and the timed-out cache, not the healthy queue", p.Detail)
		}
		mustGet(t, newClient(t, false), s.url+"/livez", 200)
	})

	t.Run("moved", func(t *testing.T) {
		app := New()
		app.Config = testConfig()
		app.Config.LivenessPath = "/health/live"
		app.Config.ReadinessPath = "/health/ready"
		s := serveApp(t, app, listenLocal(t))
		c := newClient(t, false)
		mustGet(t, c, s.url+"/health/live", 200)
		mustGet(t, c, s.url+"/health/ready", 200)
		mustGet(t, c, s.url+"/livez", 404)
		mustGet(t, c, s.url+"/readyz", 404)
	})

	t.Run("off", func(t *testing.T) {
		app := New()
		app.Config = testConfig()
		app.Config.LivenessPath = "-"
		app.Config.ReadinessPath = "-"
		app.Get("/readyz", func(c *Ctx) error { return c.Text(200, "mine") })
		s := serveApp(t, app, listenLocal(t))
		c := newClient(t, false)
		mustGet(t, c, s.url+"/livez", 404)
		if r := mustGet(t, c, s.url+"/readyz", 200); r.body != "mine" {
			t.Errorf("/readyz with the probe off: %q, want the App's route", r.body)
		}
	})
}

func TestServerPeerAddr(t *testing.T) {
	app := New()
	app.Config = testConfig()
	app.Get("/peer", func(c *Ctx) error { return c.Text(200, c.PeerAddr().String()) })
	s := serveApp(t, app, listenLocal(t))
	c := dialRaw(t, s.addr)
	writeRaw(t, c, "GET /peer HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	resp, body, err := readResponse(c, bufio.NewReader(c), soon)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	want := c.LocalAddr().(*net.TCPAddr).AddrPort()
	got, err := netip.ParseAddrPort(body)
	if err != nil || got.Addr().Unmap() != want.Addr().Unmap() || got.Port() != want.Port() {
		t.Errorf("PeerAddr %q, want %s", body, want)
	}
	if !got.Addr().IsLoopback() {
		t.Errorf("PeerAddr %s is not loopback", got)
	}
}

func TestServerStartupLog(t *testing.T) {
	var buf syncbuf.Buffer
	app := New()
	app.Config = testConfig()
	app.Config.Logger = slog.New(slog.NewJSONHandler(&buf, nil))
	app.Config.MaxConnections = 77
	ln := listenLocal(t)
	s := serveApp(t, app, ln)
	mustGet(t, newClient(t, false), s.url+"/livez", 200)
	s.cancel()
	if err := s.wait(t, soon); err != nil {
		t.Fatal(err)
	}
	var serving []map[string]any
	for line := range strings.Lines(buf.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["msg"] == "plinth: serving" {
			serving = append(serving, m)
		}
	}
	if len(serving) != 1 {
		t.Fatalf("%d startup lines in\n%s", len(serving), buf.String())
	}
	m := serving[0]
	if m["addr"] != ln.Addr().String() || m["max_connections"] != float64(77) || m["protocols"] != "HTTP/1.1" {
		t.Errorf("startup line %v", m)
	}
	for _, k := range []string{"header_read_timeout", "body_read_timeout", "idle_timeout", "max_header_bytes", "max_body_bytes", "shutdown_timeout"} {
		if _, ok := m[k]; !ok {
			t.Errorf("startup line has no %s: %v", k, m)
		}
	}
}

// With ReusePort, MaxConnections still bounds the connections of the
// server, not of each listener.
func TestServerReusePortSharesTheConnectionLimit(t *testing.T) {
	const limit = 2
	cfg, err := Config{
		Addr: "127.0.0.1:" + freePort(t), ReusePort: 2, MaxConnections: limit,
		Logger: quietLogger(), ShutdownTimeout: soon,
	}.withEnv(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	lns, err := listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(lns) != 2 || lns[0].Addr().String() != lns[1].Addr().String() {
		t.Fatalf("listeners %v", lns)
	}
	h := newHolder(t, cfg)
	h.app.Logger = quietLogger()
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{addr: lns[0].Addr().String(), cancel: cancel, done: make(chan struct{})}
	s.url = "http://" + s.addr
	go func() { s.err = h.app.serve(ctx, lns, cfg); close(s.done) }()
	t.Cleanup(func() { cancel(); <-s.done })

	held := h.holdN(t, s, limit, false)
	// The kernel spreads these over both listeners.
	var accepted atomic.Int64
	var wg sync.WaitGroup
	for range 12 {
		c := dialRaw(t, s.addr)
		wg.Go(func() {
			if _, _, err := readResponse(c, bufio.NewReader(c), 2*time.Second); isTimeout(err) {
				accepted.Add(1)
			}
		})
	}
	wg.Wait()
	if n := accepted.Load(); n > 0 {
		t.Errorf("MaxConnections %d with ReusePort 2: %d connections past the limit were accepted", limit, n)
	}
	h.releaseN(t, held, limit)
}

func TestRun(t *testing.T) {
	addr := "127.0.0.1:" + freePort(t)
	t.Setenv("PLINTH_ADDR", addr)
	t.Setenv("PLINTH_SHUTDOWN_TIMEOUT", "5s")
	app := New()
	app.Logger = quietLogger()
	app.Config.Logger = quietLogger()
	app.Get("/", hello)
	done := make(chan error, 1)
	go func() { done <- app.Run() }()

	// Serving implies Run's signal handler is installed: only then is it
	// safe to signal the test process.
	client := newClient(t, false)
	eventually(t, soon, "Run serving", func() bool {
		select {
		case err := <-done:
			t.Fatalf("Run returned early: %v", err)
		default:
		}
		r := do(t.Context(), client, "GET", "http://"+addr+"/", nil)
		return r.err == nil && r.status == 200 && r.body == "hello"
	})
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := recv(t, done, "Run returning after SIGTERM"); err != nil {
		t.Errorf("Run after SIGTERM: %v", err)
	}
	// Run leaves no goroutine behind.
	deadline := time.Now().Add(2 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		i := bytes.Index(buf, []byte("(*App).Run.func"))
		if i < 0 {
			break
		}
		if time.Now().After(deadline) {
			start := max(bytes.LastIndex(buf[:i], []byte("\n\ngoroutine ")), 0)
			end := bytes.Index(buf[i:], []byte("\n\n"))
			if end < 0 {
				end = len(buf) - i
			}
			t.Errorf("a goroutine of Run is still running after Run returned:\n%s", buf[start:i+end])
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A second signal during the drain exits the process at once with status 1.
// The test runs Run in a child process (this test binary).
func TestRunSecondSignalExits(t *testing.T) {
	if os.Getenv("PLINTH_TEST_RUN_CHILD") == "1" {
		app := New()
		app.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
		app.Get("/", hello)
		app.Get("/stuck", func(c *Ctx) error {
			fmt.Fprintln(os.Stderr, "child: stuck handler entered")
			select {}
		})
		err := app.Run()
		fmt.Fprintf(os.Stderr, "Run returned: %v\n", err)
		os.Exit(3)
	}
	addr := "127.0.0.1:" + freePort(t)
	ctx, cancel := context.WithTimeout(t.Context(), forever)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRunSecondSignalExits$")
	cmd.Env = append(os.Environ(), "PLINTH_TEST_RUN_CHILD=1", "PLINTH_ADDR="+addr, "PLINTH_SHUTDOWN_TIMEOUT=1m")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	waitLine := func(substr string) {
		t.Helper()
		timeout := time.After(soon)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the child exited before logging %q:\n%s", substr, log.String())
				}
				log.WriteString(l + "\n")
				if strings.Contains(l, substr) {
					return
				}
			case <-timeout:
				t.Fatalf("the child did not log %q within %s:\n%s", substr, soon, log.String())
			}
		}
	}
	waitLine("plinth: serving")
	client := newClient(t, false)
	eventually(t, soon, "the child serving", func() bool {
		r := do(t.Context(), client, "GET", "http://"+addr+"/", nil)
		return r.err == nil && r.status == 200
	})
	stuckCtx, stuckCancel := context.WithCancel(t.Context())
	defer stuckCancel()
	go do(stuckCtx, client, "GET", "http://"+addr+"/stuck", nil)
	waitLine("stuck handler entered")

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitLine("draining")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() {
		for l := range lines {
			log.WriteString(l + "\n")
		}
		exited <- cmd.Wait()
	}()
	err = recv(t, exited, "the child exiting after the second signal")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("child exit: %v, want status 1\n%s", err, log.String())
	}
}
