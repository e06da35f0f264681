package engine

// Connection reuse and the end of a connection, side by side with net/http:
// each test serves the same plain handler on net/http's server and on the
// engine, sends the same bytes to both, and expects the same thing of both.
// They cover what the fuzzers found: the unread body read after
// a response that closes the connection, net/http's wait for four bytes
// before the next request, and a request line cut by the end of the stream.

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth/racetest"
)

// serveBoth serves h on net/http and on the engine, and runs fn for each,
// in parallel, with the server's address.
func serveBoth(t *testing.T, h http.Handler, fn func(t *testing.T, addr string)) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	std := &http.Server{Handler: h, ErrorLog: nil}
	go std.Serve(ln)
	t.Cleanup(func() { std.Close() })
	_, fast := start(t, h, func(c *Config) { c.MaxHeaderBytes = http.DefaultMaxHeaderBytes })
	for _, s := range []struct{ name, addr string }{{"std", ln.Addr().String()}, {"fast", fast}} {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			fn(t, s.addr)
		})
	}
}

// dial connects to addr; the connection closes at the end of the test.
func dial(t *testing.T, addr string) *net.TCPConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*net.TCPConn)
}

func send(t *testing.T, c net.Conn, s string) {
	t.Helper()
	if _, err := io.WriteString(c, s); err != nil {
		t.Fatal(err)
	}
}

// readResp reads one response within 5s.
func readResp(t *testing.T, c net.Conn, br *bufio.Reader) *http.Response {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no response: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(strings.NewReader(string(b)))
	return resp
}

// restWithin reads what the server sends until it closes, failing t if it
// does not close within 5s.
func restWithin(t *testing.T, c net.Conn, br *bufio.Reader) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, err := io.ReadAll(br)
	if err != nil && !errors.Is(err, net.ErrClosed) && !isReset(err) {
		t.Fatalf("the server did not close: %v (read %q)", err, b)
	}
	return string(b)
}

// statusOf returns the status code of the response that starts s.
func statusOf(s string) string {
	_, rest, _ := strings.Cut(s, " ")
	code, _, _ := strings.Cut(rest, " ")
	return code
}

func isReset(err error) bool { return err != nil && strings.Contains(err.Error(), "reset") }

// stillOpen reports whether the server neither sent anything nor closed
// within a short while: it is waiting for bytes.
func stillOpen(t *testing.T, c net.Conn, br *bufio.Reader) bool {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	_, err := br.Peek(1)
	return errors.Is(err, os.ErrDeadlineExceeded)
}

// After a response that closes the connection (here a redirect with
// "Connection: close"), what is left of an unread chunked body is still
// read, up to 256 KiB, before the connection closes: a client still sending
// it reads the answer rather than a reset. The stream fuzzer's finding:
// "POST /////////ch ... 0\r\n" (plinth's 307 for an unclean path).
func TestUnreadBodyIsReadBeforeClose(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		w.Header().Set("Location", "/ch")
		w.WriteHeader(http.StatusTemporaryRedirect)
	})
	serveBoth(t, h, func(t *testing.T, addr string) {
		c := dial(t, addr)
		br := bufio.NewReader(c)
		send(t, c, "POST /////////ch HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n")
		if resp := readResp(t, c, br); resp.StatusCode != 307 || !resp.Close {
			t.Fatalf("%d close=%v, want 307 and the connection closing", resp.StatusCode, resp.Close)
		}
		if !stillOpen(t, c, br) {
			t.Fatal("closed before the rest of the body (the trailer's end) arrived")
		}
		send(t, c, "\r\n")
		if rest := restWithin(t, c, br); rest != "" {
			t.Errorf("after the body: %q, want the connection closed", rest)
		}
	})
	// A body framed by Content-Length on a request that asks to close is not
	// read: there is no trailer to look for.
	serveBoth(t, h, func(t *testing.T, addr string) {
		c := dial(t, addr)
		br := bufio.NewReader(c)
		send(t, c, "POST / HTTP/1.1\r\nHost: a\r\nConnection: close\r\nContent-Length: 10\r\n\r\n01234")
		readResp(t, c, br)
		if rest := restWithin(t, c, br); rest != "" {
			t.Errorf("%q, want the connection closed", rest)
		}
	})
}

// A handler that closes the body without reading it: Close reads and drops
// what is left (up to 256 KiB), and the connection serves the next request.
func TestBodyCloseDiscardsAndKeepsConnection(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.Body.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if n, err := r.Body.Read(make([]byte, 1)); r.ContentLength != 0 && (n != 0 || err != http.ErrBodyReadAfterClose) {
			t.Errorf("Read after Close: %d %v, want http.ErrBodyReadAfterClose", n, err)
		}
		io.WriteString(w, r.URL.Path)
	})
	serveBoth(t, h, func(t *testing.T, addr string) {
		c := dial(t, addr)
		br := bufio.NewReader(c)
		send(t, c, "POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"+
			"POST /b HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-T: 1\r\n\r\n"+
			"GET /c HTTP/1.1\r\nHost: a\r\n\r\n")
		for _, want := range []string{"/a", "/b", "/c"} {
			resp := readResp(t, c, br)
			if b := bodyOf(resp); resp.StatusCode != 200 || b != want || resp.Close {
				t.Fatalf("%d %q close=%v, want 200 %q on a kept connection", resp.StatusCode, b, resp.Close, want)
			}
		}
	})
}

// A body of more than 256 KiB left unread and then closed by the handler is
// given up on: the connection closes after the response.
func TestBodyCloseGivesUpOnBigBody(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body.Close()
		io.WriteString(w, "ok")
	})
	body := strings.Repeat("x", 300<<10)
	serveBoth(t, h, func(t *testing.T, addr string) {
		for _, raw := range []string{
			"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 307200\r\n\r\n" + body,
			"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n4b000\r\n" + body + "\r\n0\r\n\r\n",
		} {
			c := dial(t, addr)
			br := bufio.NewReader(c)
			go io.WriteString(c, raw)
			if resp := readResp(t, c, br); resp.StatusCode != 200 || !resp.Close {
				t.Errorf("%.60q: %d close=%v, want 200 and the connection closing", raw, resp.StatusCode, resp.Close)
			}
			restWithin(t, c, br)
		}
	})
}

// An Expect: 100-continue body that the handler did not read to its end
// closes the connection after the response, as net/http's.
func TestExpectContinueBodyReadInPartCloses(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadFull(r.Body, make([]byte, 2))
		io.WriteString(w, "ok")
	})
	serveBoth(t, h, func(t *testing.T, addr string) {
		c := dial(t, addr)
		br := bufio.NewReader(c)
		send(t, c, "POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
		if resp := readResp(t, c, br); resp.StatusCode != 100 {
			t.Fatalf("%d, want 100 Continue first", resp.StatusCode)
		}
		send(t, c, "helloGET / HTTP/1.1\r\nHost: a\r\n\r\n")
		if resp := readResp(t, c, br); resp.StatusCode != 200 || !resp.Close {
			t.Fatalf("%d close=%v, want 200 and the connection closing", resp.StatusCode, resp.Close)
		}
		if rest := restWithin(t, c, br); rest != "" {
			t.Errorf("%q after the response, want the connection closed", rest)
		}
	})
}

// After a request, the next one is read once four bytes have come, as
// net/http's Peek(4): a client that sends fewer and closes gets no answer;
// four bytes that cannot start a request get a 400.
func TestNextRequestWaitsForFourBytes(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	cases := []struct {
		prev, next string
		want       string // "" for no answer, else a status code
	}{
		{"GET / HTTP/1.1\r\nHost: a\r\n\r\n", "GE", ""},
		{"GET / HTTP/1.1\r\nHost: a\r\n\r\n", "\r\n", ""},
		{"GET / HTTP/1.1\r\nHost: a\r\n\r\n", "GET ", "400"},
		{"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\nx", "\r\nG", ""},
		{"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\nx", "\r\nGE", "400"},
	}
	serveBoth(t, h, func(t *testing.T, addr string) {
		for _, tc := range cases {
			c := dial(t, addr)
			br := bufio.NewReader(c)
			send(t, c, tc.prev)
			readResp(t, c, br)
			send(t, c, tc.next)
			c.CloseWrite()
			rest := restWithin(t, c, br)
			if got := statusOf(rest); tc.want == "" && rest != "" || tc.want != "" && got != tc.want {
				t.Errorf("%q then %q and a half-close: %q, want %q", tc.prev, tc.next, rest, tc.want)
			}
		}
	})
	// Bytes that cannot start a request are answered once four have come,
	// not before.
	serveBoth(t, h, func(t *testing.T, addr string) {
		c := dial(t, addr)
		br := bufio.NewReader(c)
		send(t, c, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
		readResp(t, c, br)
		send(t, c, "\r\n")
		if !stillOpen(t, c, br) {
			t.Fatal("answered two bytes")
		}
		send(t, c, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
		if resp := readResp(t, c, br); resp.StatusCode != 400 {
			t.Errorf("%d, want 400 (an empty request line)", resp.StatusCode)
		}
	})
}

// A request line cut by the end of the stream is answered 400, except when
// the cut falls where net/http's 4 KiB line reader returns a fragment: then
// it reads io.EOF and closes without a word (the head fuzzer's finding).
func TestRequestLineCutByEOF(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	a := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		raw    string
		answer bool
	}{
		{"GET", true},
		{a(4095), true},
		{a(4096), false},
		{a(4097), true},
		{a(8192), false},
		{a(4095) + "\r", true},            // the CR is kept for the next fragment
		{a(4095) + "\r" + a(4095), false}, // fragments of 4095 and 4096
		{"GET /" + a(4091), false},
	}
	serveBoth(t, h, func(t *testing.T, addr string) {
		for _, tc := range cases {
			c := dial(t, addr)
			br := bufio.NewReader(c)
			send(t, c, tc.raw)
			c.CloseWrite()
			rest := restWithin(t, c, br)
			if answered := statusOf(rest) == "400"; answered != tc.answer || !answered && rest != "" {
				t.Errorf("%d bytes %.20q...: %.40q, want a 400: %v", len(tc.raw), tc.raw, rest, tc.answer)
			}
		}
	})
}

// A keep-alive POST whose handler leaves its body unread costs the engine
// no more allocations than one whose handler reads it (the head's string
// and the request's own, and for a chunked body net/http's decoder and the
// request's TransferEncoding): the discard reuses a per-connection buffer.
func TestAllocsPerRequestUnreadBody(t *testing.T) {
	if racetest.Enabled || poisoning {
		t.Skip("allocation counts are not meaningful under -race or plinth_enginepoison (fresh requests)")
	}
	ok := []byte("ok")
	_, addr := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = textPlain
		w.Write(ok)
	}), func(c *Config) { c.IdleTimeout = time.Minute })
	c := dial(t, addr)
	for _, tc := range []struct {
		req  string
		want float64
	}{
		{"POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 3000\r\n\r\n" + strings.Repeat("x", 3000), 1 + perRequestAllocs},
		// net/http's chunked decoder (httputil.NewChunkedReader) and the
		// TransferEncoding slice are two more.
		{"POST /p HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nbb8\r\n" + strings.Repeat("x", 3000) + "\r\n0\r\n\r\n", 3 + perRequestAllocs},
	} {
		roundTrip := exchanger(t, c, []byte(tc.req), ok, 1)
		if allocs := testing.AllocsPerRun(100, roundTrip); allocs > tc.want {
			t.Errorf("%.40q: %.2f allocations per request, want at most %v", tc.req, allocs, tc.want)
		}
	}
}
