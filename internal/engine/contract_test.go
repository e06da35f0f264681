package engine

// The request contract of net/http, kept by the engine: what a
// handler can reach through its request (the *http.Request, its Header,
// URL, Trailer, context and Body) belongs to that request alone, also for a
// goroutine that reads it after the handler returned; and four differences
// from net/http that a security review found and the engine no longer has
// (the 101 head before a hijack, trailer names, the header timer, idle
// memory).

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// lateRead is what a goroutine read of its request after the handler
// returned.
type lateRead struct {
	want                      string // the secret the request carried
	header, path, query, host string
	ctxErr                    error
	body                      string
	bodyErr                   error
	trailer                   string
	contextDoneAfterReturn    bool
	method, remote, userAgent string
}

// TestLateReadersSeeTheirOwnRequest: a handler hands its request to a
// goroutine that reads it 20 ms after the handler returned, while 16
// keep-alive clients send their own secrets in the header, the path, the
// query, the body and a trailer. Every late read sees its own request: on
// main at 225b12c, 1,364-1,532 of 1,600 such reads returned another
// client's secret. The body read after the return fails
// (http.ErrBodyReadAfterClose, as on net/http), and the context is
// cancelled when the handler returns.
func TestLateReadersSeeTheirOwnRequest(t *testing.T) {
	const clients, perClient = 16, 40
	reads := make(chan lateRead, clients*perClient)
	var wg sync.WaitGroup
	_, addr := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secret := r.Header.Get("X-Secret")
		if r.Method == "POST" {
			// Read to its end, so that the trailer is the request's.
			if b, err := io.ReadAll(r.Body); string(b) != secret || err != nil {
				t.Errorf("body %q %v, want %q", b, err, secret)
			}
		}
		io.WriteString(w, secret)
		wg.Go(func() {
			time.Sleep(20 * time.Millisecond)
			var lr lateRead
			lr.want = secret
			lr.header = r.Header.Get("X-Secret")
			lr.path = r.URL.Path
			lr.query = r.URL.Query().Get("s")
			lr.host = r.Host
			lr.method = r.Method
			lr.userAgent = r.UserAgent()
			lr.remote = r.RemoteAddr
			lr.ctxErr = r.Context().Err()
			select {
			case <-r.Context().Done():
				lr.contextDoneAfterReturn = true
			default:
			}
			if poisoning { // where this read panics by design
				lr.bodyErr = http.ErrBodyReadAfterClose
			} else {
				b, err := io.ReadAll(r.Body)
				lr.body, lr.bodyErr = string(b), err
			}
			lr.trailer = r.Trailer.Get("X-Trailer-Secret")
			reads <- lr
		})
	}))
	var cw sync.WaitGroup
	for i := range clients {
		cw.Go(func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			br := bufio.NewReader(c)
			for j := range perClient {
				secret := fmt.Sprintf("client%02d-request%03d", i, j)
				var req string
				if j%2 == 0 {
					// A chunked body with a trailer: the late reader
					// must not get the next request's bytes.
					req = "POST /" + secret + "?s=" + secret + " HTTP/1.1\r\nHost: " + secret + "\r\nX-Secret: " + secret +
						"\r\nTransfer-Encoding: chunked\r\nTrailer: X-Trailer-Secret\r\n\r\n" +
						strconv.FormatInt(int64(len(secret)), 16) + "\r\n" + secret + "\r\n0\r\nX-Trailer-Secret: " + secret + "\r\n\r\n"
				} else {
					req = "GET /" + secret + "?s=" + secret + " HTTP/1.1\r\nHost: " + secret + "\r\nUser-Agent: ua-" + secret + "\r\nX-Secret: " + secret + "\r\n\r\n"
				}
				if _, err := io.WriteString(c, req); err != nil {
					t.Error(err)
					return
				}
				c.SetReadDeadline(time.Now().Add(10 * time.Second))
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Error(err)
					return
				}
				got, _ := io.ReadAll(resp.Body)
				if string(got) != secret {
					t.Errorf("answer %q, want %q", got, secret)
				}
			}
		})
	}
	cw.Wait()
	wg.Wait()
	close(reads)
	n, leaks := 0, 0
	for lr := range reads {
		n++
		s := lr.want
		post := strings.HasSuffix(lr.host, "0") || strings.HasSuffix(lr.host, "2") || strings.HasSuffix(lr.host, "4") || strings.HasSuffix(lr.host, "6") || strings.HasSuffix(lr.host, "8")
		wantUA := "ua-" + s
		if post {
			wantUA = ""
		}
		if lr.header != s || lr.path != "/"+s || lr.query != s || lr.host != s || lr.userAgent != wantUA {
			leaks++
			if leaks < 5 {
				t.Errorf("a late read of %q saw header %q path %q query %q host %q user agent %q", s, lr.header, lr.path, lr.query, lr.host, lr.userAgent)
			}
		}
		if post && lr.method != "POST" || !post && lr.method != "GET" {
			t.Errorf("a late read of %q saw method %q", s, lr.method)
		}
		if post && lr.trailer != s {
			t.Errorf("a late read of %q saw trailer %q", s, lr.trailer)
		}
		if lr.body != "" || !errors.Is(lr.bodyErr, http.ErrBodyReadAfterClose) && !(lr.bodyErr == nil && !post) {
			t.Errorf("a late body read of %q gave %q, %v; want nothing and http.ErrBodyReadAfterClose", s, lr.body, lr.bodyErr)
		}
		if !errors.Is(lr.ctxErr, context.Canceled) || !lr.contextDoneAfterReturn {
			t.Errorf("the context of %q after its handler returned: Err %v, Done closed %v; want cancelled", s, lr.ctxErr, lr.contextDoneAfterReturn)
		}
		if !strings.HasPrefix(lr.remote, "127.0.0.1:") {
			t.Errorf("RemoteAddr %q", lr.remote)
		}
	}
	if n != clients*perClient {
		t.Errorf("%d late reads, want %d", n, clients*perClient)
	}
	if leaks > 0 {
		t.Errorf("%d of %d late reads saw another request", leaks, n)
	}
}

// TestTimeoutHandlerUnderLoad: http.TimeoutHandler answers 503 and
// returns while its handler goes on; that handler then reads its request's
// header and body. On main at 225b12c it read the next client's (a
// password in a body) and the process died in 2 of 5 runs with
// "concurrent map read and map write". Here 8 keep-alive clients each send
// 30 requests with their own secrets; every late read sees its own secret
// or nothing, never another's, and the answers are net/http's.
func TestTimeoutHandlerUnderLoad(t *testing.T) {
	const clients, perClient = 8, 30
	var seen, foreign atomic.Int64
	var inner sync.WaitGroup
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner.Add(1)
		defer inner.Done()
		secret := r.URL.Query().Get("s")
		if r.URL.Query().Get("slow") == "1" {
			<-r.Context().Done() // TimeoutHandler's context ends at its timeout
			time.Sleep(5 * time.Millisecond)
		}
		for range 50 { // the header map is read while the connection serves the next request
			if v := r.Header.Get("X-Secret"); v != secret {
				foreign.Add(1)
			}
			for k := range r.Header {
				_ = k
			}
		}
		var b []byte
		if !poisoning { // where a read after TimeoutHandler returned panics by design
			b, _ = io.ReadAll(r.Body)
		}
		if len(b) > 0 && string(b) != "password="+secret {
			foreign.Add(1)
		}
		seen.Add(1)
		io.WriteString(w, "done "+secret)
	})
	_, addr := start(t, http.TimeoutHandler(slow, 30*time.Millisecond, "timed out"))
	var cw sync.WaitGroup
	for i := range clients {
		cw.Go(func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			br := bufio.NewReader(c)
			for j := range perClient {
				secret := fmt.Sprintf("c%d-r%d", i, j)
				body := "password=" + secret
				slowFlag := strconv.Itoa(j % 2)
				req := "POST /?slow=" + slowFlag + "&s=" + secret + " HTTP/1.1\r\nHost: a\r\nX-Secret: " + secret +
					"\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
				if _, err := io.WriteString(c, req); err != nil {
					t.Error(err)
					return
				}
				c.SetReadDeadline(time.Now().Add(10 * time.Second))
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Error(err)
					return
				}
				got, _ := io.ReadAll(resp.Body)
				switch {
				case slowFlag == "1" && (resp.StatusCode != 503 || string(got) != "timed out"):
					t.Errorf("slow request: %d %q, want 503 \"timed out\"", resp.StatusCode, got)
				case slowFlag == "0" && resp.StatusCode == 200 && string(got) != "done "+secret:
					t.Errorf("quick request: %d %q", resp.StatusCode, got)
				}
			}
		})
	}
	cw.Wait()
	inner.Wait()
	if foreign.Load() > 0 {
		t.Errorf("%d reads of a timed-out handler saw another client's header or body", foreign.Load())
	}
	if seen.Load() != clients*perClient {
		t.Errorf("%d handlers finished, want %d", seen.Load(), clients*perClient)
	}
}

// TestUpgradeHeadBeforeHijack: a handler that writes its 101 with
// WriteHeader and then hijacks the connection (coder/websocket's Accept
// does) has its 101 head sent first, on the engine as on net/http.
func TestUpgradeHeadBeforeHijack(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "Upgrade")
		w.Header().Set("Upgrade", "plinth-test")
		w.WriteHeader(http.StatusSwitchingProtocols)
		nc, brw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer nc.Close()
		line, _ := brw.ReadString('\n')
		nc.Write([]byte("echo: " + line))
	})
	serveBoth(t, h, func(t *testing.T, addr string) {
		c := dial(t, addr)
		send(t, c, "GET /ws HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: plinth-test\r\n\r\n")
		br := bufio.NewReader(c)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("no 101 head: %v", err)
		}
		if resp.StatusCode != 101 || resp.Header.Get("Upgrade") != "plinth-test" || resp.Header.Get("Connection") != "Upgrade" {
			t.Fatalf("head %d %v, want 101 with Upgrade and Connection", resp.StatusCode, resp.Header)
		}
		send(t, c, "hello\n")
		line, err := br.ReadString('\n')
		if err != nil || line != "echo: hello\n" {
			t.Fatalf("after the upgrade: %q %v", line, err)
		}
	})
}

// TestTrailerNamesAreChecked: trailer names the handler declares or sets
// with the Trailer: prefix are written only when they are tokens (and, for
// declared ones, allowed in a trailer), as net/http's Header.Write does; a
// name carrying CR LF cannot split the response.
func TestTrailerNamesAreChecked(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Trailer", "X-Ok, Bad Name, Content-Length, X-Evil\r\nInjected: 1")
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(200)
		io.WriteString(w, "body")
		w.(http.Flusher).Flush()
		w.Header().Set("X-Ok", "ok")
		w.Header()["Bad Name"] = []string{"bad"}
		w.Header()["X-Evil\r\nInjected: 1"] = []string{"evil"}
		w.Header()["Content-Length"] = []string{"99"}
		w.Header()[http.TrailerPrefix+"X-Late"] = []string{"late"}
		w.Header()[http.TrailerPrefix+"Late Bad"] = []string{"bad"}
		w.Header()[http.TrailerPrefix+"X-Split\r\nSmuggled: yes"] = []string{"bad"}
	})
	var mu sync.Mutex
	got := map[string]string{}
	t.Cleanup(func() { // after both parallel subtests
		std, fast := got[t.Name()+"/std"], got[t.Name()+"/fast"]
		if std == "" || trailerSet(std) != trailerSet(fast) {
			t.Errorf("trailers differ from net/http's:\nstd  %q\nfast %q", std, fast)
		}
	})
	serveBoth(t, h, func(t *testing.T, addr string) {
		c := dial(t, addr)
		send(t, c, "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
		raw := restWithin(t, c, bufio.NewReader(c))
		_, body, _ := strings.Cut(raw, "\r\n\r\n")
		mu.Lock()
		got[t.Name()] = body
		mu.Unlock()
		if strings.Contains(body, "Injected") || strings.Contains(body, "Smuggled") || strings.Contains(body, "Bad Name") || strings.Contains(body, "Late Bad") {
			t.Errorf("a name that is not a token reached the wire:\n%q", body)
		}
		for _, want := range []string{"X-Ok: ok\r\n", "X-Late: late\r\n"} {
			if !strings.Contains(body, want) {
				t.Errorf("trailer %q missing:\n%q", want, body)
			}
		}
	})
}

// trailerSet is the sorted set of trailer lines after a chunked body's last
// chunk.
func trailerSet(body string) string {
	_, tr, _ := strings.Cut(body, "0\r\n")
	lines := strings.Split(strings.TrimSpace(tr), "\r\n")
	for i := 1; i < len(lines); i++ {
		for j := i; j > 0 && lines[j] < lines[j-1]; j-- {
			lines[j], lines[j-1] = lines[j-1], lines[j]
		}
	}
	return strings.Join(lines, "|")
}

// TestHeaderTimeoutCountsFromConnectionStart: a client that sends its
// first byte late in the header timeout and trickles the rest is closed at
// the timeout counted from the connection's start, as on net/http; on main
// at 225b12c the first byte restarted the timer (a first byte at 9 s held
// the connection 19 s).
func TestHeaderTimeoutCountsFromConnectionStart(t *testing.T) {
	// The engine skips moving a deadline by less than a second (see
	// setReadDeadline): the restart shows with a first byte a second or
	// more after the start.
	const timeout = 2 * time.Second
	_, addr := start(t, http.NotFoundHandler(), func(c *Config) { c.HeaderReadTimeout = timeout })
	c := dial(t, addr)
	t0 := time.Now()
	time.Sleep(1500 * time.Millisecond)
	send(t, c, "G")
	closed := make(chan time.Duration, 1)
	go func() {
		io.Copy(io.Discard, c)
		closed <- time.Since(t0)
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case d := <-closed:
			// The bug closes at 3.5 s; the bound leaves 0.8 s for a slow
			// machine.
			if d > 2800*time.Millisecond {
				t.Fatalf("closed %v after the connection's start, want about %v", d, timeout)
			}
			return
		case <-tick.C:
			c.Write([]byte("E")) // a byte every 100 ms: never a whole head
		case <-time.After(5 * time.Second):
			t.Fatal("the connection was not closed")
		}
	}
}

// TestIdleMemory: idle keep-alive connections hold, whatever their last
// request and response were, no more than twice what net/http's hold. On
// main at 225b12c, 1,000 idle connections after one 64 KB head with about
// 10,800 header names held 1,097 MB (net/http 9 MB), and 200 connections
// after one 5 MB response 1,004 MB (net/http 7 MB). Measured in this
// process: live heap and stacks after a GC, with the connections open and
// idle, less the same before they were opened.
func TestIdleMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("moves about 300 MB over loopback")
	}
	if poisoning {
		t.Skip("a plinth_enginepoison build keeps a copy of each connection's last request")
	}
	big := bytes.Repeat([]byte("x"), 5<<20)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			w.Write(big)
			return
		}
		for i := range 300 { // a response header that grows the writer's map
			w.Header()["X-Answer-"+strconv.Itoa(i)] = []string{"v"}
		}
		io.WriteString(w, "ok")
	})
	// A head of about 60 KB with about 10,000 header names.
	var head strings.Builder
	head.WriteString("GET /head HTTP/1.1\r\nHost: a\r\n")
	for i := 0; head.Len() < 60<<10-32; i++ {
		fmt.Fprintf(&head, "%x:\r\n", i)
	}
	head.WriteString("\r\n")
	cases := []struct {
		name  string
		conns int
		req   string
	}{
		{"large head", 200, head.String()},
		{"5 MB response", 48, "GET /big HTTP/1.1\r\nHost: a\r\n\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			std := idleBytes(t, tc.conns, tc.req, func(t *testing.T) string {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				s := &http.Server{Handler: h, MaxHeaderBytes: 64 << 10}
				go s.Serve(ln)
				t.Cleanup(func() { s.Close() })
				return ln.Addr().String()
			})
			fast := idleBytes(t, tc.conns, tc.req, func(t *testing.T) string {
				_, addr := start(t, h, func(c *Config) { c.MaxHeaderBytes = 64 << 10; c.IdleTimeout = time.Minute })
				return addr
			})
			t.Logf("%d idle connections after %s: net/http %d KB, engine %d KB (%.2fx)", tc.conns, tc.name, std>>10, fast>>10, float64(fast)/float64(std))
			if fast > 2*std {
				t.Errorf("the engine's idle connections hold %d KB, more than twice net/http's %d KB", fast>>10, std>>10)
			}
		})
	}
}

// idleBytes opens n connections to the server serve starts, sends req on
// each and reads its answer, and returns how much more heap and stack the
// process holds with them idle than before.
func idleBytes(t *testing.T, n int, req string, serve func(*testing.T) string) int64 {
	var before, after runtime.MemStats
	addr := serve(t)
	// One connection first, so that what every server allocates once (its
	// pools, the clock) is in the baseline.
	warm := dial(t, addr)
	send(t, warm, req)
	readAnswer(t, warm)
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	conns := make([]net.Conn, n)
	for i := range conns {
		conns[i] = dial(t, addr)
		send(t, conns[i], req)
		readAnswer(t, conns[i])
	}
	time.Sleep(100 * time.Millisecond) // the servers reach their idle wait
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	for _, c := range conns {
		c.Close()
	}
	used := int64(after.HeapInuse+after.StackInuse) - int64(before.HeapInuse+before.StackInuse)
	return max(used, 1)
}

// readAnswer reads one response on c and drops its body, through a small
// buffer (the client's share of the memory stays small).
func readAnswer(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReaderSize(c, 4<<10), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}
