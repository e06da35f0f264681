package engine

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// start serves h on a loopback listener for the test's duration.
func start(t testing.TB, h http.Handler, mod ...func(*Config)) (*Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Handler: h, HeaderReadTimeout: 2 * time.Second, IdleTimeout: 5 * time.Second, MaxHeaderBytes: 8 << 10, ErrorLog: log.New(io.Discard, "", 0)}
	for _, m := range mod {
		m(&cfg)
	}
	s := New(cfg)
	done := make(chan struct{})
	go func() { s.Serve(ln); close(done) }()
	t.Cleanup(func() { s.Close(); <-done })
	return s, ln.Addr().String()
}

// exchange sends raw and reads the responses until the server closes or n
// responses were read; it returns them parsed.
func converse(t testing.TB, addr, raw string, n int) []*http.Response {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	var out []*http.Response
	for i := 0; i < n; i++ {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			break
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body = io.NopCloser(strings.NewReader(string(b)))
		out = append(out, resp)
	}
	return out
}

func bodyOf(r *http.Response) string { b, _ := io.ReadAll(r.Body); return string(b) }

func echo() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s %s host=%s len=%d te=%v body=%q err=%v trailer=%v", r.Method, r.URL.String(), r.Proto, r.Host, r.ContentLength, r.TransferEncoding, b, err, r.Trailer)
	})
}

func TestBasicAndPipelined(t *testing.T) {
	_, addr := start(t, echo())
	rs := converse(t, addr, "GET /a?b=1 HTTP/1.1\r\nHost: x\r\n\r\nPOST /p HTTP/1.1\r\nHost: y\r\nContent-Length: 3\r\n\r\nabcGET /z HTTP/1.1\r\nHost: z\r\nConnection: close\r\n\r\n", 5)
	if len(rs) != 3 {
		t.Fatalf("got %d responses", len(rs))
	}
	want := []string{
		`GET /a?b=1 HTTP/1.1 host=x len=0 te=[] body="" err=<nil> trailer=map[]`,
		`POST /p HTTP/1.1 host=y len=3 te=[] body="abc" err=<nil> trailer=map[]`,
		`GET /z HTTP/1.1 host=z len=0 te=[] body="" err=<nil> trailer=map[]`,
	}
	for i, r := range rs {
		if got := bodyOf(r); got != want[i] {
			t.Errorf("response %d: %q, want %q", i, got, want[i])
		}
		if r.Header.Get("Date") == "" || r.ContentLength <= 0 {
			t.Errorf("response %d: header %v length %d", i, r.Header, r.ContentLength)
		}
	}
	if !rs[2].Close {
		t.Errorf("last response not closing")
	}
}

func TestChunkedTrailers(t *testing.T) {
	_, addr := start(t, echo())
	rs := converse(t, addr, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nX-T: v\r\n\r\n", 1)
	if len(rs) != 1 {
		t.Fatal("no response")
	}
	if got, want := bodyOf(rs[0]), `POST / HTTP/1.1 host=x len=-1 te=[chunked] body="abcde" err=<nil> trailer=map[X-T:[v]]`; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

func TestRefusals(t *testing.T) {
	_, addr := start(t, echo())
	for _, tc := range []struct {
		raw    string
		status int
	}{
		{"GET / HTTP/1.1\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
		{"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400},
		{"GET / HTTP/2.1\r\nHost: a\r\n\r\n", 505},
		{"GET / HTTP/1.1\r\nHost: a\r\nFoo : bar\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: a\r\nFoo: b\x00r\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: a\r\nFoo: bar\r\n baz\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: a\r\nX: " + strings.Repeat("a", 9000) + "\r\n\r\n", 431},
		{"GET / HTTP/1.1\r\nHost: a\r\nExpect: magic\r\n\r\n", 417},
		{"G(T / HTTP/1.1\r\nHost: a\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400},
	} {
		rs := converse(t, addr, tc.raw, 1)
		if len(rs) != 1 || rs[0].StatusCode != tc.status {
			t.Errorf("%q: got %v, want %d", tc.raw, statuses(rs), tc.status)
		}
	}
}

func statuses(rs []*http.Response) []int {
	var s []int
	for _, r := range rs {
		s = append(s, r.StatusCode)
	}
	return s
}

func TestExpectContinue(t *testing.T) {
	_, addr := start(t, echo())
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
	br := bufio.NewReader(c)
	line, _ := br.ReadString('\n')
	if line != "HTTP/1.1 100 Continue\r\n" {
		t.Fatalf("got %q", line)
	}
	br.ReadString('\n')
	io.WriteString(c, "hi")
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatal(err)
	}
	if b := bodyOf(resp); !strings.Contains(b, `body="hi"`) {
		t.Errorf("%q", b)
	}
}

func TestLargeBodyChunkedResponse(t *testing.T) {
	big := strings.Repeat("x", 10000)
	_, addr := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, big) }))
	rs := converse(t, addr, "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.0\r\n\r\n", 2)
	if len(rs) != 2 || bodyOf(rs[0]) != big || rs[0].TransferEncoding[0] != "chunked" || bodyOf(rs[1]) != big || !rs[1].Close {
		t.Fatalf("got %v", statuses(rs))
	}
}

func TestPanic(t *testing.T) {
	_, addr := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/abort" {
			panic(http.ErrAbortHandler)
		}
		panic("boom")
	}))
	rs := converse(t, addr, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 2)
	if len(rs) != 1 || rs[0].StatusCode != 500 || !rs[0].Close {
		t.Fatalf("got %v", statuses(rs))
	}
	rs = converse(t, addr, "GET /abort HTTP/1.1\r\nHost: x\r\n\r\n", 2)
	if len(rs) != 0 {
		t.Fatalf("got %v", statuses(rs))
	}
}

func TestShutdown(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	s, addr := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(started)
			<-release
		}
	}))
	idle, _ := net.Dial("tcp", addr)
	defer idle.Close()
	io.WriteString(idle, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	ibr := bufio.NewReader(idle)
	if r, err := http.ReadResponse(ibr, nil); err != nil || r.StatusCode != 200 {
		t.Fatal(err)
	}
	busy, _ := net.Dial("tcp", addr)
	defer busy.Close()
	io.WriteString(busy, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
	<-started
	done := make(chan error)
	go func() { done <- s.Shutdown(context.Background()) }()
	idle.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := ibr.ReadByte(); err != io.EOF {
		t.Errorf("idle connection: %v, want EOF", err)
	}
	close(release)
	resp, err := http.ReadResponse(bufio.NewReader(busy), nil)
	if err != nil || !resp.Close {
		t.Errorf("in-flight response: %v close=%v", err, resp != nil && resp.Close)
	}
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// TestSilentConnectionGetsHeaderTimeout: a connection that sends nothing is
// closed after the head's timeout, not the idle one (as on net/http).
func TestSilentConnectionGetsHeaderTimeout(t *testing.T) {
	_, addr := start(t, echo(), func(c *Config) { c.HeaderReadTimeout = 200 * time.Millisecond; c.IdleTimeout = time.Minute })
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("silent connection: %v, want EOF within the header timeout", err)
	}
}

// TestHeaderNamesChangeBetweenResponses: the writer's reuse of the previous
// response's names never sends a stale or missing header.
func TestHeaderNamesChangeBetweenResponses(t *testing.T) {
	_, addr := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, kv := range strings.Split(r.URL.Query().Get("h"), ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				w.Header().Set(k, v)
			}
		}
	}))
	qs := []string{"A=1", "A=2", "B=3", "A=4,B=5", "B=6,C=7", "", "C=8", "Connection=close"}
	var raw strings.Builder
	for _, q := range qs {
		raw.WriteString("GET /?h=" + q + " HTTP/1.1\r\nHost: x\r\n\r\n")
	}
	rs := converse(t, addr, raw.String(), len(qs))
	if len(rs) != len(qs) {
		t.Fatalf("%d responses", len(rs))
	}
	for i, q := range qs {
		want := map[string]string{}
		for _, kv := range strings.Split(q, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok && k != "Connection" {
				want[k] = v
			}
		}
		for _, k := range []string{"A", "B", "C"} {
			if got := rs[i].Header.Get(k); got != want[k] {
				t.Errorf("response %d (%s): %s=%q, want %q", i, q, k, got, want[k])
			}
		}
	}
	if !rs[len(rs)-1].Close {
		t.Error("Connection: close from the handler not honoured")
	}
}

// TestHasControl holds the word-at-a-time check to the byte loop it stands
// for, for every byte value at every position of strings up to 20 bytes of
// several fillers (high bytes too: a borrow must not cross into them).
func TestHasControl(t *testing.T) {
	for _, bg := range []string{"a", "\x0e", "\x80", "\xff", " "} {
		for n := 1; n <= 20; n++ {
			for i := 0; i < n; i++ {
				for b := 0; b < 256; b++ {
					s := []byte(strings.Repeat(bg, n))
					s[i] = byte(b)
					if got, want := hasControl(string(s)), b < 0x0e; got != want {
						t.Fatalf("hasControl(%q) = %v, want %v", s, got, want)
					}
				}
			}
		}
	}
	if hasControl("") {
		t.Error(`hasControl("") = true`)
	}
}

// TestHeaderReadAtWriteHeader: as on net/http, the header is the one the
// handler had at WriteHeader: a field set or deleted afterwards changes
// nothing, on responses that start at once, with the body, or when the
// handler returns; an invalid Content-Length is dropped.
func TestHeaderReadAtWriteHeader(t *testing.T) {
	_, addr := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Before", "1")
		h.Set("Gone-Later", "2")
		switch r.URL.Path {
		case "/cl":
			h.Set("Content-Length", "x1")
		case "/late-cl":
			w.WriteHeader(200)
			h.Set("Content-Length", "1") // too late: the body is sent whole
			io.WriteString(w, "hello")
			return
		}
		w.WriteHeader(200)
		h.Set("After", "3")
		h.Del("Gone-Later")
		if r.URL.Path == "/flush" {
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "body")
	}))
	rs := converse(t, addr, "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /flush HTTP/1.1\r\nHost: x\r\n\r\n"+
		"GET /cl HTTP/1.1\r\nHost: x\r\n\r\nGET /late-cl HTTP/1.1\r\nHost: x\r\n\r\n", 4)
	if len(rs) != 4 {
		t.Fatalf("%d responses", len(rs))
	}
	for i, r := range rs[:3] {
		if r.Header.Get("Before") != "1" || r.Header.Get("Gone-Later") != "2" || r.Header.Get("After") != "" {
			t.Errorf("response %d: header %v, want the one at WriteHeader", i, r.Header)
		}
		if b := bodyOf(r); b != "body" {
			t.Errorf("response %d: body %q", i, b)
		}
	}
	if cl := rs[2].Header.Get("Content-Length"); cl == "x1" {
		t.Errorf("invalid Content-Length sent: %q", cl)
	}
	if b := bodyOf(rs[3]); b != "hello" || rs[3].ContentLength != 5 {
		t.Errorf("Content-Length set after WriteHeader: body %q, length %d, want hello and 5", b, rs[3].ContentLength)
	}
}
