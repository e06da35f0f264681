package plinth

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth/internal/syncbuf"
)

// trickleBody sends a request head declaring a 100000-byte body, then one
// byte every 200ms until the test ends or the connection fails, and returns
// the reader of the connection.
func trickleBody(t *testing.T, addr, method, target string) (net.Conn, *bufio.Reader, func() error) {
	t.Helper()
	c := dialRaw(t, addr)
	writeRaw(t, c, method+" "+target+" HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nx")
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
			_ = c.SetWriteDeadline(time.Now().Add(time.Second))
			if _, err := c.Write([]byte{'x'}); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
	return c, bufio.NewReader(c), func() error { return waitClosed(c, soon) }
}

// TestServerSlowBodyOnFallbacks: a keep-alive client that
// declares a body and trickles it to a path the router answers by itself
// (404, 405, redirect, automatic OPTIONS, OPTIONS *) or to a probe gets its
// answer with "Connection: close", and the connection closes at once: the
// body nobody reads is not drained at the client's pace. The body read
// timeout is a minute here, so only the cut can close it within the test.
func TestServerSlowBodyOnFallbacks(t *testing.T) {
	t.Parallel()
	app := New()
	app.Config = testConfig()
	app.Config.BodyReadTimeout = time.Minute
	app.Get("/only-get", hello)
	app.Get("/dir/", hello)
	s := serveApp(t, app, listenLocal(t))
	for _, tc := range []struct {
		method, target string
		status         int
	}{
		{"POST", "/nope", 404},
		{"POST", "/only-get", 405},
		{"POST", "/a/../only-get", 307},
		{"GET", "/dir", 307},
		{"OPTIONS", "/only-get", 204},
		{"OPTIONS", "*", 204},
		{"POST", "/livez", 200},
		{"POST", "/readyz", 200},
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			t.Parallel()
			c, br, closed := trickleBody(t, s.addr, tc.method, tc.target)
			resp, _, err := readResponse(c, br, soon)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			if resp.StatusCode != tc.status || !resp.Close {
				t.Errorf("%d, close %v; want %d with Connection: close", resp.StatusCode, resp.Close, tc.status)
			}
			if err := closed(); err != nil {
				t.Errorf("the trickling connection is %v", err)
			}
		})
	}
}

// TestServerSlowBodiesHoldNoSlots: slow-body connections on a
// fallback path no longer hold the connection limit: with 5 connections
// allowed, 5 trickling clients leave room for the probe.
func TestServerSlowBodiesHoldNoSlots(t *testing.T) {
	t.Parallel()
	app := New()
	app.Config = testConfig()
	app.Config.MaxConnections = 5
	app.Config.BodyReadTimeout = time.Minute
	s := serveApp(t, app, listenLocal(t))
	for range 5 {
		c, br, closed := trickleBody(t, s.addr, "POST", "/nope")
		if resp, _, err := readResponse(c, br, soon); err != nil || resp.StatusCode != 404 {
			t.Fatalf("trickling client: %v %v", resp, err)
		}
		if err := closed(); err != nil {
			t.Fatalf("the trickling connection is %v", err)
		}
	}
	c := newClient(t, false)
	eventually(t, soon, "readiness answering 200 after the trickling clients", func() bool {
		return do(t.Context(), c, "GET", s.url+"/readyz", nil).status == 200
	})
}

// TestServerDrainWithSlowBody: a client trickling a body to a
// 404 while the server drains does not stall the drain past its grace.
func TestServerDrainWithSlowBody(t *testing.T) {
	t.Parallel()
	app := New()
	app.Config = testConfig()
	app.Config.BodyReadTimeout = time.Minute
	app.Config.ShutdownTimeout = 3 * time.Second
	s := serveApp(t, app, listenLocal(t))
	c, br, _ := trickleBody(t, s.addr, "POST", "/nope")
	if resp, _, err := readResponse(c, br, soon); err != nil || resp.StatusCode != 404 {
		t.Fatalf("trickling client: %v %v", resp, err)
	}
	s.cancel()
	if err := s.wait(t, forever); err != nil {
		t.Errorf("drain with a trickling client: %v, want a clean drain", err)
	}
}

// TestBodyLimitAnsweredInsideTheChain: the 413 decided from
// Content-Length is an error like any other: it carries the request ID and
// the security headers, passes through the route's middleware (which sees
// the final status), and goes to the App's ErrorHandler.
func TestBodyLimitAnsweredInsideTheChain(t *testing.T) {
	app := New()
	app.SetBodyLimit(10)
	var sawStatus atomic.Int64
	var handlerRan, errorHandler atomic.Bool
	app.UseHTTP(func(next http.Handler) http.Handler { // a CORS-like header
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Access-Control-Allow-Origin", "https://app.example")
			next.ServeHTTP(w, r)
		})
	})
	app.Use(func(next HandlerFunc) HandlerFunc { // an access-log-like layer
		return func(c *Ctx) error {
			c.WriteError(next(c))
			sawStatus.Store(int64(c.Status()))
			return nil
		}
	})
	app.ErrorHandler = func(c *Ctx, err error) {
		errorHandler.Store(true)
		DefaultErrorHandler(c, err)
	}
	app.Post("/in", func(c *Ctx) error {
		handlerRan.Store(true)
		return c.NoContent(204)
	})
	req := httptest.NewRequest("POST", "/in", strings.NewReader("01234567890123456789"))
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	h := rec.Header()
	if rec.Code != 413 || h.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("%d %q, want a 413 problem", rec.Code, h.Get("Content-Type"))
	}
	if handlerRan.Load() {
		t.Error("the handler ran for a body over the limit")
	}
	for _, k := range []string{"X-Request-Id", "X-Content-Type-Options", "Content-Security-Policy", "Access-Control-Allow-Origin"} {
		if h.Get(k) == "" {
			t.Errorf("413 without %s", k)
		}
	}
	if h.Get("Connection") != "close" {
		t.Errorf("413 without Connection: close")
	}
	if !strings.Contains(rec.Body.String(), `"request_id":"`+h.Get("X-Request-Id")+`"`) {
		t.Errorf("413 body without the request ID: %s", rec.Body)
	}
	if !errorHandler.Load() || sawStatus.Load() != 413 {
		t.Errorf("ErrorHandler called %v, middleware saw %d; want true, 413", errorHandler.Load(), sawStatus.Load())
	}
	// Middleware that reads the body before the handler gets the limit's
	// error, not the unbounded body.
	app2 := Bare()
	app2.SetBodyLimit(10)
	app2.Use(func(next HandlerFunc) HandlerFunc {
		return func(c *Ctx) error {
			if _, err := io.ReadAll(c.Request().Body); err != nil {
				return err
			}
			return next(c)
		}
	})
	app2.Post("/in", func(c *Ctx) error { return c.NoContent(204) })
	rec = httptest.NewRecorder()
	app2.ServeHTTP(rec, httptest.NewRequest("POST", "/in", strings.NewReader("01234567890123456789")))
	if rec.Code != 413 {
		t.Errorf("middleware reading an oversize body: %d, want 413", rec.Code)
	}
}

// TestBodyReadErrors: a trickled body cut by the body read
// timeout is a 408, bad chunked encoding a 400, when a native handler returns
// the read error as it got it.
func TestBodyReadErrors(t *testing.T) {
	t.Parallel()
	app := New()
	app.Config = testConfig()
	app.Config.BodyReadTimeout = 300 * time.Millisecond
	app.Config.MinBodyRate = 1000
	app.Post("/read", func(c *Ctx) error {
		b, err := io.ReadAll(c.Request().Body)
		if err != nil {
			return err
		}
		return c.Text(200, fmt.Sprint(len(b)))
	})
	logs := &syncbuf.Buffer{}
	app.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := serveApp(t, app, listenLocal(t))

	tc, br, closed := trickleBody(t, s.addr, "POST", "/read")
	resp, body, err := readResponse(tc, br, soon)
	if err != nil || resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(body, "too slowly") {
		t.Errorf("trickled body: %v %q %v, want a 408 problem", resp, body, err)
	}
	if err := closed(); err != nil {
		t.Errorf("after the 408 the connection is %v", err)
	}

	c := dialRaw(t, s.addr)
	writeRaw(t, c, "POST /read HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n")
	resp, body, err = readResponse(c, bufio.NewReader(c), soon)
	if err != nil || resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "could not be read") {
		t.Errorf("bad chunked encoding: %v %q %v, want a 400 problem", resp, body, err)
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("a client's bad body was logged as an error:\n%s", logs)
	}
}

// multipartUpload returns a multipart body with one file of size bytes.
func multipartUpload(t *testing.T, size int) (string, []byte) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile("file", "big.bin")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write(bytes.Repeat([]byte("z"), size))
	_ = mw.WriteField("note", "hi")
	_ = mw.Close()
	return mw.FormDataContentType(), buf.Bytes()
}

// TestMultipartFilesRemoved: a multipart upload that spills to
// temporary files leaves none behind, whichever path parsed it: a plain
// handler behind the body limit, a native handler, a plain handler behind a
// standard middleware that replaced the request, a Mount, and an upload
// refused mid-parse by the limit.
func TestMultipartFilesRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	app := New()
	app.Config = testConfig()
	parsed := func(r *http.Request) string {
		if err := r.ParseMultipartForm(1 << 10); err != nil {
			return "error: " + err.Error()
		}
		return r.MultipartForm.Value["note"][0]
	}
	app.HandleFunc("POST /plain", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, parsed(r)) })
	app.Post("/native", func(c *Ctx) error { return c.Text(200, parsed(c.Request())) })
	app.WithHTTP(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), struct{ wrappedKey int }{}, 1)))
		})
	}).HandleFunc("POST /wrapped", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, parsed(r)) })
	app.Mount("/mounted", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, parsed(r)) }))
	small := app.Group("/small")
	small.SetBodyLimit(64 << 10)
	small.HandleFunc("POST /plain", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		io.WriteString(w, parsed(r))
	})
	s := serveApp(t, app, listenLocal(t))
	client := newClient(t, true)
	ct, body := multipartUpload(t, 300<<10)
	for _, path := range []string{"/plain", "/native", "/wrapped", "/mounted/x"} {
		req, _ := http.NewRequest("POST", s.url+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", ct)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != "hi" {
			t.Errorf("%s: %d %q, want the form parsed", path, resp.StatusCode, b)
		}
	}
	// Chunked, so that the limit is met mid-parse rather than declared.
	req, _ := http.NewRequest("POST", s.url+"/small/plain", io.MultiReader(bytes.NewReader(body)))
	req.Header.Set("Content-Type", ct)
	if resp, err := client.Do(req); err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), "error") {
			t.Errorf("over-limit upload parsed: %q", b)
		}
	}
	eventually(t, soon, "no multipart-* file left in TMPDIR", func() bool {
		left, _ := filepath.Glob(filepath.Join(tmp, "multipart-*"))
		return len(left) == 0
	})
}

// TestH2BodyToFallbackKeepsTheConnection: over HTTP/2 a body sent to a
// fallback, a probe or an oversize route ends its stream only: the answer
// carries no "Connection: close", which net/http's HTTP/2 server would turn
// into a GOAWAY for every stream of the connection.
func TestH2BodyToFallbackKeepsTheConnection(t *testing.T) {
	app := New()
	app.Config = testConfig()
	app.Config.H2C = true
	app.Get("/ok", hello)
	g := app.Group("/small")
	g.SetBodyLimit(1)
	g.Post("", hello)
	s := serveApp(t, app, listenLocal(t))
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()
	cl := &http.Client{Transport: tr}
	get := func() (reused bool) {
		ctx := httptrace.WithClientTrace(t.Context(), &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }})
		req, _ := http.NewRequestWithContext(ctx, "GET", s.url+"/ok", nil)
		res, err := cl.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return reused
	}
	get()
	for _, tc := range []struct {
		path   string
		status int
	}{{"/nope", 404}, {"/livez", 200}, {"/small", 413}} {
		res, err := cl.Post(s.url+tc.path, "text/plain", strings.NewReader("xyz"))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != tc.status || res.ProtoMajor != 2 {
			t.Errorf("POST %s: %d over %s, want %d over HTTP/2", tc.path, res.StatusCode, res.Proto, tc.status)
		}
		if !get() {
			t.Errorf("POST %s: the next request did not reuse the connection (GOAWAY)", tc.path)
		}
	}
}

// TestPartialReadThenAnswer: a handler that answers without reading its body
// to the end is not held back while net/http discards the rest at a
// trickling client's pace: the answer comes within a second's grace.
func TestPartialReadThenAnswer(t *testing.T) {
	t.Parallel()
	app := New()
	app.Config = testConfig()
	app.Config.BodyReadTimeout = time.Minute
	app.Post("/partial", func(c *Ctx) error {
		_, _ = io.ReadFull(c.Request().Body, make([]byte, 16<<10))
		return Error(422, "bad first record")
	})
	s := serveApp(t, app, listenLocal(t))
	c := dialRaw(t, s.addr)
	writeRaw(t, c, "POST /partial HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n"+strings.Repeat("x", 16<<10))
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(500 * time.Millisecond):
			}
			if _, err := c.Write([]byte("x")); err != nil {
				return
			}
		}
	}()
	resp, _, err := readResponse(c, bufio.NewReader(c), soon)
	if err != nil || resp.StatusCode != 422 {
		t.Fatalf("the answer to a partly read, trickled body: %v %v, want a 422 before the deadline", resp, err)
	}
}

// TestMultipartFilesRemovedOnAbort: the files of a parsed form are removed
// also when the chain ends in a panic (here the timeout layer aborting a
// response that had started).
func TestMultipartFilesRemovedOnAbort(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	app := New()
	app.Config = testConfig()
	g := app.Group("/slow")
	g.SetHandlerTimeout(200 * time.Millisecond)
	g.Post("", func(c *Ctx) error {
		if err := c.Request().ParseMultipartForm(1 << 10); err != nil {
			return err
		}
		_, _ = c.Writer().Write([]byte("progress\n"))
		_ = http.NewResponseController(c.Writer()).Flush()
		<-c.Context().Done()
		return nil
	})
	s := serveApp(t, app, listenLocal(t))
	ct, body := multipartUpload(t, 300<<10)
	req, _ := http.NewRequest("POST", s.url+"/slow", bytes.NewReader(body))
	req.Header.Set("Content-Type", ct)
	if res, err := newClient(t, true).Do(req); err == nil {
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	eventually(t, soon, "no multipart-* file left after the abort", func() bool {
		left, _ := filepath.Glob(filepath.Join(tmp, "multipart-*"))
		return len(left) == 0
	})
}
