package plinth

// net/http's own server tests (net/http/serve_test.go) that apply to an
// HTTP/1.1 server, run over loopback on both engines: the engine must
// behave as net/http does, or as docs/engine.md ("What differs") says
// where it differs.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth/internal/syncbuf"
)

// forEngines runs fn once per engine, in parallel.
func forEngines(t *testing.T, fn func(t *testing.T, eng string)) {
	t.Helper()
	for _, eng := range engineNames {
		t.Run(eng, func(t *testing.T) {
			t.Parallel()
			fn(t, eng)
		})
	}
}

// serveOn serves app on engine eng until t ends; the server's log goes to
// the returned buffer. It fails t if the startup line does not name a
// non-default engine (then net/http would be answering instead).
func serveOn(t *testing.T, eng string, app *App) (*served, *syncbuf.Buffer) {
	t.Helper()
	app.Config.Engine = eng
	logs := &syncbuf.Buffer{}
	app.Logger = quietLogger()
	app.Config.Logger = slog.New(slog.NewTextHandler(logs, nil))
	if app.Config.ShutdownTimeout == 0 {
		app.Config.ShutdownTimeout = soon
	}
	s := serveApp(t, app, listenLocal(t))
	eventually(t, soon, "startup line", func() bool { return strings.Contains(logs.String(), "plinth: serving") })
	if eng != "std" && !strings.Contains(logs.String(), "engine="+eng) {
		t.Fatalf("engine %q: the startup line does not name it:\n%s", eng, logs.String())
	}
	return s, logs
}

// rawRoundTrip writes raw on a new connection and reads one response.
func rawRoundTrip(t *testing.T, addr, raw string) (*http.Response, string, net.Conn, *bufio.Reader) {
	t.Helper()
	c := dialRaw(t, addr)
	writeRaw(t, c, raw)
	br := bufio.NewReader(c)
	resp, body, err := readResponse(c, br, soon)
	if err != nil {
		t.Fatalf("%q: no response: %v", raw, err)
	}
	return resp, body, c, br
}

func TestEngineMirrorBadRequests(t *testing.T) {
	big := "GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + strings.Repeat("b", 70000) + "\r\n\r\n"
	cases := []struct {
		raw    string
		status int
	}{
		{"GET / HTTP/1.1\r\n\r\n", 400},                                                         // no Host
		{"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},                                   // two Hosts
		{"GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400},                                            // bad Host
		{"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400}, // CLs disagree
		{"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400},
		{"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x1\r\n\r\nx", 400},
		{"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 501}, // unknown TE
		{"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n", 501},
		{"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n", 501},
		{"GET / HTTP/1.1\r\nHost: a\r\nX: a\x00b\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: a\r\nX : b\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", 400},
		{"GET / HTTP/9.9\r\nHost: a\r\n\r\n", 505},
		{"GET / HTTP/1.1 x\r\nHost: a\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: a\r\nExpect: something\r\n\r\n", 417},
		{big, 431},
		{"\r\nGET /hello HTTP/1.1\r\nHost: a\r\n\r\n", 400}, // CRLF before the request line: net/http refuses it
	}
	forEngines(t, func(t *testing.T, eng string) {
		app := New()
		app.Get("/", hello)
		app.Get("/hello", hello)
		app.Post("/", countBody(nil))
		s, _ := serveOn(t, eng, app)
		for _, c := range cases {
			resp, _, conn, _ := rawRoundTrip(t, s.addr, c.raw)
			if resp.StatusCode != c.status {
				t.Errorf("%.80q: %d, want %d", c.raw, resp.StatusCode, c.status)
			}
			if c.status >= 400 {
				if err := waitClosed(conn, soon); err != nil {
					t.Errorf("%.80q: after %d the connection is %v", c.raw, c.status, err)
				}
			}
		}
	})
}

// An invalid chunked body or trailer is an error for the handler reading
// it, and the connection is not reused.
func TestEngineMirrorInvalidChunked(t *testing.T) {
	bodies := []string{"zz\r\nhello\r\n0\r\n\r\n", "5\r\nhelloXX\r\n0\r\n\r\n", "ffffffffffffffffffff\r\nx\r\n",
		"3\r\nabc\r\n0\r\nBad Trailer\r\n\r\n", "3\r\nabc\r\n0\r\nX: a\x00\r\n\r\n"}
	forEngines(t, func(t *testing.T, eng string) {
		app := New()
		errs := make(chan error, 10)
		app.Post("/", countBody(errs))
		s, _ := serveOn(t, eng, app)
		for _, b := range bodies {
			raw := "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" + b + "GET / HTTP/1.1\r\nHost: a\r\n\r\n"
			resp, _, conn, br := rawRoundTrip(t, s.addr, raw)
			if resp.StatusCode < 400 {
				t.Errorf("%q: %d, want an error status", b, resp.StatusCode)
			}
			if err := recv(t, errs, "the handler's read error"); err == nil {
				t.Errorf("%q: the handler read no error", b)
			}
			if r2, _, err := readResponse(conn, br, soon); err == nil {
				t.Errorf("%q: a second response (%d) after a broken body", b, r2.StatusCode)
			}
		}
	})
}

func TestEngineMirrorExpectContinue(t *testing.T) {
	forEngines(t, func(t *testing.T, eng string) {
		app := New()
		app.Post("/read", countBody(nil))
		app.Post("/ignore", hello)
		app.Get("/hello", hello)
		s, _ := serveOn(t, eng, app)

		// The handler reads: 100 Continue comes before the body is sent.
		c := dialRaw(t, s.addr)
		br := bufio.NewReader(c)
		writeRaw(t, c, "POST /read HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
		resp, _, err := readResponse(c, br, soon)
		if err != nil || resp.StatusCode != 100 {
			t.Fatalf("want 100 Continue first: %v %v", resp, err)
		}
		writeRaw(t, c, "hello")
		resp, body, err := readResponse(c, br, soon)
		if err != nil || resp.StatusCode != 200 || body != "5" {
			t.Fatalf("after the body: %v %q %v", resp, body, err)
		}

		// The handler never reads: no 100, the answer, and the unsent body
		// is never taken for the next request.
		c = dialRaw(t, s.addr)
		br = bufio.NewReader(c)
		writeRaw(t, c, "POST /ignore HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
		resp, body, err = readResponse(c, br, soon)
		if err != nil || resp.StatusCode != 200 || body != "hello" {
			t.Fatalf("handler that never reads: %v %q %v", resp, body, err)
		}
		_, _ = io.WriteString(c, "GET /hello HTTP/1.1\r\nHost: a\r\n\r\n") // may fail: closed
		// Either the connection is closed, or the next request is read as a
		// request: the 5 body bytes were never sent, so none may be skipped.
		if resp, body, err := readResponse(c, br, soon); err == nil && (resp.StatusCode != 200 || body != "hello") {
			t.Errorf("the request after an unread Expect body: %d %q, want it served (or the connection closed)", resp.StatusCode, body)
		} else if isTimeout(err) {
			t.Errorf("the request after an unread Expect body: no answer (the server waits for the body it never asked for)")
		}
	})
}

// A handler setting a header value with CR or LF must not split the
// response; invalid header names are not sent.
func TestEngineMirrorHeaderInjection(t *testing.T) {
	forEngines(t, func(t *testing.T, eng string) {
		app := New()
		app.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Evil", "a\r\nSet-Cookie: injected=1")
			w.Header().Set("X-Evil-Lf", "a\nInjected-Lf: 1")
			w.Header().Set("X-Evil-Cr", "a\rInjected-Cr: 1")
			w.Header()["Injected-Name\r\nX-Bad"] = []string{"v"}
			w.Header()["X-Nul"] = []string{"a\x00Injected-Nul: 1"}
			io.WriteString(w, "body")
		})
		s, _ := serveOn(t, eng, app)
		c := dialRaw(t, s.addr)
		writeRaw(t, c, "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
		_ = c.SetReadDeadline(time.Now().Add(soon))
		raw, _ := io.ReadAll(c)
		head, _, _ := strings.Cut(string(raw), "\r\n\r\n")
		for line := range strings.SplitSeq(head, "\r\n") {
			for _, bad := range []string{"Set-Cookie", "Injected", "X-Bad"} {
				if strings.HasPrefix(line, bad) {
					t.Errorf("response split: line %q in\n%s", line, head)
				}
			}
		}
		if strings.Count(string(raw), "HTTP/1.1 ") != 1 || !strings.HasSuffix(string(raw), "body") {
			t.Errorf("response:\n%q", raw)
		}
	})
}

// HEAD, 204 and 304 carry no body, even when the handler writes one, and
// the connection's framing stays right (pipelined).
func TestEngineMirrorNoBodyResponses(t *testing.T) {
	forEngines(t, func(t *testing.T, eng string) {
		app := New()
		app.HandleFunc("/body", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "0123456789") })
		app.HandleFunc("/304", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(304)
			io.WriteString(w, "must not be sent")
		})
		app.HandleFunc("/204", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(204)
			io.WriteString(w, "must not be sent")
		})
		s, _ := serveOn(t, eng, app)
		c := dialRaw(t, s.addr)
		writeRaw(t, c, "HEAD /body HTTP/1.1\r\nHost: a\r\n\r\nGET /304 HTTP/1.1\r\nHost: a\r\n\r\n"+
			"GET /204 HTTP/1.1\r\nHost: a\r\n\r\nGET /body HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
		_ = c.SetReadDeadline(time.Now().Add(soon))
		br := bufio.NewReader(c)
		for _, want := range []struct {
			method string
			status int
			body   string
		}{{"HEAD", 200, ""}, {"GET", 304, ""}, {"GET", 204, ""}, {"GET", 200, "0123456789"}} {
			resp, err := http.ReadResponse(br, &http.Request{Method: want.method})
			if err != nil {
				t.Fatalf("%s %d: %v", want.method, want.status, err)
			}
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != want.status || string(b) != want.body {
				t.Errorf("%s: %d %q, want %d %q", want.method, resp.StatusCode, b, want.status, want.body)
			}
		}
		if rest, _ := io.ReadAll(br); len(rest) != 0 {
			t.Errorf("bytes after the last response: %q", rest)
		}
	})
}

// A declared Content-Length is enforced both ways.
func TestEngineMirrorContentLength(t *testing.T) {
	forEngines(t, func(t *testing.T, eng string) {
		app := New()
		writeErr := make(chan error, 1)
		app.HandleFunc("/short", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "10")
			io.WriteString(w, "12345")
		})
		app.HandleFunc("/long", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "3")
			_, err := io.WriteString(w, "12345")
			writeErr <- err
		})
		s, _ := serveOn(t, eng, app)
		c := dialRaw(t, s.addr)
		writeRaw(t, c, "GET /short HTTP/1.1\r\nHost: a\r\n\r\n")
		br := bufio.NewReader(c)
		if _, body, err := readResponse(c, br, soon); err == nil {
			t.Errorf("/short: a complete response %q, want a cut one", body)
		}
		if err := waitClosed(c, soon); err != nil {
			t.Errorf("/short: connection %v", err)
		}
		c = dialRaw(t, s.addr)
		writeRaw(t, c, "GET /long HTTP/1.1\r\nHost: a\r\n\r\nGET /short HTTP/1.1\r\nHost: a\r\n\r\n")
		br = bufio.NewReader(c)
		if _, body, err := readResponse(c, br, soon); err == nil {
			t.Errorf("/long: a complete response %q, want a cut one (net/http writes nothing past the length)", body)
		}
		if err := recv(t, writeErr, "write error"); !errors.Is(err, http.ErrContentLength) {
			t.Errorf("/long: Write error %v, want http.ErrContentLength", err)
		}
	})
}

func TestEngineMirrorFlush(t *testing.T) {
	forEngines(t, func(t *testing.T, eng string) {
		app := New()
		release := newCloser(t)
		app.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "first;")
			if err := http.NewResponseController(w).Flush(); err != nil {
				t.Errorf("Flush: %v", err)
			}
			<-release.ch
			io.WriteString(w, "second")
		})
		s, _ := serveOn(t, eng, app)
		c := dialRaw(t, s.addr)
		writeRaw(t, c, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
		br := bufio.NewReader(c)
		_ = c.SetReadDeadline(time.Now().Add(soon))
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("no head before the handler returned: %v", err)
		}
		got := make([]byte, len("first;"))
		if _, err := io.ReadFull(resp.Body, got); err != nil || string(got) != "first;" {
			t.Fatalf("flushed part: %q %v", got, err)
		}
		release.close()
		rest, err := io.ReadAll(resp.Body)
		if err != nil || string(rest) != "second" {
			t.Errorf("rest: %q %v", rest, err)
		}
	})
}

func TestEngineMirrorHijack(t *testing.T) {
	forEngines(t, func(t *testing.T, eng string) {
		app := New()
		app.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			conn, brw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Errorf("Hijack: %v", err)
				return
			}
			defer conn.Close()
			line, _ := brw.ReadString('\n') // bytes the client sent after the request
			brw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(line)) + "\r\n\r\n" + line)
			brw.Flush()
		})
		s, _ := serveOn(t, eng, app)
		c := dialRaw(t, s.addr)
		writeRaw(t, c, "GET / HTTP/1.1\r\nHost: a\r\n\r\nafter the request\n")
		_, body, err := readResponse(c, bufio.NewReader(c), soon)
		if err != nil || body != "after the request\n" {
			t.Errorf("hijacked: %q %v", body, err)
		}
	})
}

// http.ResponseController's read deadline bounds a body read.
func TestEngineMirrorResponseControllerDeadlines(t *testing.T) {
	forEngines(t, func(t *testing.T, eng string) {
		app := Bare() // no paced body: the handler's deadline alone
		app.Config.BodyReadTimeout = Off
		readErr := make(chan error, 1)
		app.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			rc := http.NewResponseController(w)
			if err := rc.SetWriteDeadline(time.Now().Add(soon)); err != nil {
				t.Errorf("SetWriteDeadline: %v", err)
			}
			if err := rc.SetReadDeadline(time.Now().Add(200 * time.Millisecond)); err != nil {
				t.Errorf("SetReadDeadline: %v", err)
			}
			_, err := io.ReadAll(r.Body)
			readErr <- err
		})
		s, _ := serveOn(t, eng, app)
		c := dialRaw(t, s.addr)
		writeRaw(t, c, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc")
		if err := recv(t, readErr, "the body read to time out"); !isTimeout(err) && err == nil {
			t.Errorf("body read: %v, want a timeout", err)
		}
	})
}

// http.ErrAbortHandler closes the connection and logs nothing; another
// panic gives 500 when nothing was written (plinth.New's recovery), then
// the server goes on serving.
func TestEngineMirrorAbortAndPanic(t *testing.T) {
	forEngines(t, func(t *testing.T, eng string) {
		for _, bare := range []bool{false, true} {
			app := New()
			if bare {
				app = Bare()
			}
			app.HandleFunc("/abort", func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, "partial")
				http.NewResponseController(w).Flush()
				panic(http.ErrAbortHandler)
			})
			app.HandleFunc("/panic", func(w http.ResponseWriter, r *http.Request) { panic("boom") })
			app.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
			s, logs := serveOn(t, eng, app)

			c := dialRaw(t, s.addr)
			writeRaw(t, c, "GET /abort HTTP/1.1\r\nHost: a\r\n\r\n")
			if _, body, err := readResponse(c, bufio.NewReader(c), soon); err == nil {
				t.Errorf("bare=%v /abort: complete response %q", bare, body)
			}
			if err := waitClosed(c, soon); err != nil {
				t.Errorf("bare=%v /abort: connection %v", bare, err)
			}
			c = dialRaw(t, s.addr)
			writeRaw(t, c, "GET /panic HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n")
			br := bufio.NewReader(c)
			resp, _, err := readResponse(c, br, soon)
			switch {
			case !bare && (err != nil || resp.StatusCode != 500):
				t.Errorf("New /panic: %v %v, want 500", resp, err)
			case bare && eng != "std" && (err != nil || resp.StatusCode != 500):
				t.Errorf("Bare on the engine /panic: %v %v, want 500 (docs/engine.md: a panic before any write is answered 500)", resp, err) // net/http sends nothing
			}
			if bare {
				if err := waitClosed(c, soon); err != nil {
					t.Errorf("Bare /panic: connection %v, want closed", err)
				}
			}
			if _, body := mustGetRaw(t, s.addr, "/"); body != "ok" {
				t.Errorf("after the panics: %q", body)
			}
			if strings.Contains(logs.String(), "abort") || strings.Contains(strings.ToLower(logs.String()), "errabort") {
				t.Errorf("bare=%v ErrAbortHandler was logged:\n%s", bare, logs.String())
			}
		}
	})
}

func mustGetRaw(t *testing.T, addr, path string) (*http.Response, string) {
	t.Helper()
	resp, body, _, _ := rawRoundTrip(t, addr, "GET "+path+" HTTP/1.1\r\nHost: a\r\n\r\n")
	return resp, body
}

// Connection: close and HTTP/1.0 without keep-alive end the connection
// after the response; HTTP/1.0 keep-alive keeps it.
func TestEngineMirrorConnectionClose(t *testing.T) {
	forEngines(t, func(t *testing.T, eng string) {
		app := New()
		app.Get("/", hello)
		s, _ := serveOn(t, eng, app)
		for _, raw := range []string{"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", "GET / HTTP/1.0\r\n\r\n"} {
			resp, body, c, _ := rawRoundTrip(t, s.addr, raw)
			if resp.StatusCode != 200 || body != "hello" {
				t.Errorf("%q: %d %q", raw, resp.StatusCode, body)
			}
			if err := waitClosed(c, soon); err != nil {
				t.Errorf("%q: connection %v", raw, err)
			}
		}
		resp, _, c, br := rawRoundTrip(t, s.addr, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
		if !strings.EqualFold(resp.Header.Get("Connection"), "keep-alive") {
			t.Errorf("HTTP/1.0 keep-alive: Connection %q", resp.Header.Get("Connection"))
		}
		writeRaw(t, c, "GET / HTTP/1.0\r\n\r\n")
		if _, body, err := readResponse(c, br, soon); err != nil || body != "hello" {
			t.Errorf("second HTTP/1.0 request on a keep-alive connection: %q %v", body, err)
		}
	})
}

// The header read timeout, the idle timeout and the body pace close
// connections that stall.
func TestEngineMirrorTimeouts(t *testing.T) {
	forEngines(t, func(t *testing.T, eng string) {
		app := New()
		app.Config.HeaderReadTimeout = 300 * time.Millisecond
		app.Config.IdleTimeout = 300 * time.Millisecond
		app.Config.BodyReadTimeout = 300 * time.Millisecond
		errs := make(chan error, 1)
		app.Get("/", hello)
		app.Post("/", countBody(errs))
		s, _ := serveOn(t, eng, app)

		c := dialRaw(t, s.addr)
		writeRaw(t, c, "GET / HTTP/1.1\r\nHost: a\r\nX-Slow: ")
		if err := waitClosed(c, soon); err != nil {
			t.Errorf("incomplete head: connection %v", err)
		}
		_, _, c, _ = rawRoundTrip(t, s.addr, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
		if err := waitClosed(c, soon); err != nil {
			t.Errorf("idle keep-alive connection: %v", err)
		}
		c = dialRaw(t, s.addr)
		writeRaw(t, c, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n\r\nonly this")
		if err := recv(t, errs, "the stalled body to fail the handler's read"); err == nil {
			t.Errorf("stalled body: no read error")
		}
		if err := waitClosed(c, soon); err != nil {
			t.Errorf("stalled body: connection %v", err)
		}
	})
}

func deadlineSoon() time.Time { return time.Now().Add(soon) }

// Responses beyond the engine's write buffer: chunked for HTTP/1.1 (or a
// Content-Length), never chunked for HTTP/1.0 (close-delimited or with a
// length), and complete, pipelined or not.
func TestEngineMirrorLargeResponses(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 4096) // 64 KiB
	forEngines(t, func(t *testing.T, eng string) {
		app := New()
		app.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
			for i := 0; i < len(big); i += 1000 {
				io.WriteString(w, big[i:min(i+1000, len(big))])
			}
		})
		app.HandleFunc("/sized", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(len(big)))
			io.WriteString(w, big)
		})
		s, _ := serveOn(t, eng, app)

		c := dialRaw(t, s.addr)
		writeRaw(t, c, "GET /big HTTP/1.1\r\nHost: a\r\n\r\nGET /sized HTTP/1.1\r\nHost: a\r\n\r\nGET /big HTTP/1.1\r\nHost: a\r\n\r\n")
		br := bufio.NewReader(c)
		for i, path := range []string{"/big", "/sized", "/big"} {
			resp, body, err := readResponse(c, br, soon)
			if err != nil || body != big {
				t.Fatalf("pipelined %d %s: %d bytes, %v", i, path, len(body), err)
			}
			if path == "/sized" && resp.ContentLength != int64(len(big)) {
				t.Errorf("/sized: Content-Length %d", resp.ContentLength)
			}
		}

		for _, raw := range []string{"GET /big HTTP/1.0\r\n\r\n", "GET /big HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"} {
			c := dialRaw(t, s.addr)
			writeRaw(t, c, raw)
			_ = c.SetReadDeadline(deadlineSoon())
			all, _ := io.ReadAll(c) // HTTP/1.0 without a length: read to the close
			head, body, _ := strings.Cut(string(all), "\r\n\r\n")
			if strings.Contains(strings.ToLower(head), "transfer-encoding") {
				t.Errorf("%q: a chunked response to HTTP/1.0:\n%s", raw, head)
			}
			if body != big {
				t.Errorf("%q: body of %d bytes, want %d (head %q)", raw, len(body), len(big), head)
			}
		}
	})
}

// A client that goes away is noticed, on the engine, when a write fails:
// the handler's Write or Flush returns an error, as on net/http, and the
// request's context is cancelled (a difference docs/engine.md documents:
// not while the handler waits). A streaming handler that stops on a write
// error must stop.
func TestEngineMirrorClientGone(t *testing.T) {
	forEngines(t, func(t *testing.T, eng string) {
		app := New()
		done := make(chan error, 1)
		app.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
			rc := http.NewResponseController(w)
			chunk := []byte(strings.Repeat("s", 1024))
			stop := time.Now().Add(soon)
			for time.Now().Before(stop) {
				if _, err := w.Write(chunk); err != nil {
					break
				}
				if err := rc.Flush(); err != nil {
					break
				}
				time.Sleep(2 * time.Millisecond)
			}
			switch {
			case !time.Now().Before(stop):
				done <- fmt.Errorf("Write and Flush still succeed %s after the client closed (context: %v)", soon, r.Context().Err())
			case r.Context().Err() == nil:
				done <- errors.New("the write failed but the request's context is not cancelled")
			default:
				done <- nil
			}
		})
		s, _ := serveOn(t, eng, app)
		c := dialRaw(t, s.addr)
		writeRaw(t, c, "GET /stream HTTP/1.1\r\nHost: a\r\n\r\n")
		br := bufio.NewReader(c)
		_ = c.SetReadDeadline(deadlineSoon())
		if _, err := http.ReadResponse(br, nil); err != nil {
			t.Fatal(err)
		}
		c.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(forever):
			t.Error("the streaming handler never returned")
		}
	})
}

// Response trailers, declared (Trailer header) and undeclared
// (http.TrailerPrefix), reach the client as on net/http.
func TestEngineMirrorResponseTrailers(t *testing.T) {
	forEngines(t, func(t *testing.T, eng string) {
		app := New()
		app.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Trailer", "X-Declared")
			io.WriteString(w, "body")
			w.Header().Set("X-Declared", "d")
			w.Header().Set(http.TrailerPrefix+"X-Late", "l")
		})
		s, _ := serveOn(t, eng, app)
		resp, body, _, _ := rawRoundTrip(t, s.addr, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
		if body != "body" || resp.Trailer.Get("X-Declared") != "d" || resp.Trailer.Get("X-Late") != "l" {
			t.Errorf("body %q, trailer %v, want X-Declared: d and X-Late: l", body, resp.Trailer)
		}
	})
}

// Features of net/http's ResponseWriter a handler may use: full duplex
// (reading the body after writing), Content-Length set by the handler for
// a HEAD, and WriteHeader twice (the second ignored).
func TestEngineMirrorWriterFeatures(t *testing.T) {
	forEngines(t, func(t *testing.T, eng string) {
		app := New()
		app.HandleFunc("/duplex", func(w http.ResponseWriter, r *http.Request) {
			if err := http.NewResponseController(w).EnableFullDuplex(); err != nil {
				t.Errorf("%s: EnableFullDuplex: %v", eng, err)
			}
			io.WriteString(w, "before;")
			b, _ := io.ReadAll(r.Body)
			w.Write(b)
		})
		app.HandleFunc("/twice", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(202)
			w.WriteHeader(500)
			io.WriteString(w, "x")
		})
		s, _ := serveOn(t, eng, app)
		_, body, _, _ := rawRoundTrip(t, s.addr, "POST /duplex HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nbody")
		if body != "before;body" {
			t.Errorf("duplex: %q", body)
		}
		resp, body, _, _ := rawRoundTrip(t, s.addr, "GET /twice HTTP/1.1\r\nHost: a\r\n\r\n")
		if resp.StatusCode != 202 || body != "x" {
			t.Errorf("WriteHeader twice: %d %q, want 202 \"x\"", resp.StatusCode, body)
		}
	})
}
