package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// parseAll feeds raw to a parser in pieces of size step (through a buffer
// of bufLen bytes, as the engines do) and returns the responses it ended.
func parseAll(raw string, step, bufLen int, head bool) ([]response, error) {
	p := parser{head: head}
	buf := make([]byte, bufLen)
	n := 0
	var out []response
	for len(raw) > 0 || n > 0 {
		k := copy(buf[n:], raw[:min(step, len(raw))])
		raw = raw[k:]
		n += k
		off := 0
		for {
			m, done, err := p.feed(buf[off:n], off == 0 && n == len(buf))
			off += m
			if err != nil {
				return out, err
			}
			if done {
				out = append(out, p.resp)
			} else if m == 0 {
				break
			}
		}
		n = copy(buf, buf[off:n])
		if k == 0 && n > 0 {
			return out, errors.New("unparsed bytes at the end")
		}
	}
	return out, nil
}

func TestParser(t *testing.T) {
	next := "HTTP/1.1 299 Next\r\nContent-Length: 0\r\n\r\n"
	for _, tt := range []struct {
		name, raw string
		head      bool
		status    int
		close     bool
		wantErr   bool
	}{
		{"content-length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false, 200, false, false},
		{"chunked", "HTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n3\r\nabc\r\n0\r\nX-Trailer: 1\r\n\r\n", false, 201, false, false},
		{"close", "HTTP/1.1 503 Busy\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", false, 503, true, false},
		{"http/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", false, 200, true, false},
		{"204 without length", "HTTP/1.1 204 No Content\r\n\r\n", false, 204, false, false},
		{"head", "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", true, 200, false, false},
		{"big body", "HTTP/1.1 200 OK\r\nContent-Length: 300\r\n\r\n" + strings.Repeat("x", 300), false, 200, false, false},
		{"no length", "HTTP/1.1 200 OK\r\n\r\nbody", false, 200, false, true},
		{"bad status", "HTTP/1.1 2x0 OK\r\n\r\n", false, 0, false, true},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", false, 200, false, true},
		{"bad chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false, 200, false, true},
		{"header block too large", "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("y", 200) + "\r\n\r\n", false, 200, false, true},
	} {
		for _, step := range []int{1, 7, 1 << 20} {
			t.Run(fmt.Sprintf("%s/%d", tt.name, step), func(t *testing.T) {
				// Two responses back to back: the first must end exactly where it should.
				got, err := parseAll(tt.raw+next, step, 128, tt.head)
				if tt.wantErr {
					if err == nil {
						t.Fatalf("no error; responses %+v", got)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 2 || got[0].status != tt.status || got[0].close != tt.close || got[1].status != 299 {
					t.Errorf("got %+v, want status %d close %v, then 299", got, tt.status, tt.close)
				}
			})
		}
	}
}

func TestParserAllocs(t *testing.T) {
	raw := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!")
	var p parser
	allocs := testing.AllocsPerRun(100, func() {
		if n, done, err := p.feed(raw, false); err != nil || done || n == 0 {
			t.Fatal(n, done, err)
		}
		off := bytes.Index(raw, []byte("\r\n\r\n")) + 4
		if _, done, err := p.feed(raw[off:], false); err != nil || !done {
			t.Fatal(done, err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per response, want 0", allocs)
	}
}

func TestHistogram(t *testing.T) {
	var h histogram
	for i := 1; i <= 10000; i++ {
		h.record(time.Duration(i) * time.Microsecond)
	}
	for _, tt := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 5000 * time.Microsecond}, {0.99, 9900 * time.Microsecond}, {0.999, 9990 * time.Microsecond}, {1, 10000 * time.Microsecond}} {
		got := h.quantile(tt.q)
		if diff := float64(got-tt.want) / float64(tt.want); diff < -0.016 || diff > 0.016 {
			t.Errorf("quantile(%v) = %v, want %v within 1.6%%", tt.q, got, tt.want)
		}
	}
	if m := h.mean(); m < 5000*time.Microsecond || m > 5001*time.Microsecond {
		t.Errorf("mean %v", m)
	}
	// Every bucket's range starts where the previous ends, and values map
	// into their own bucket.
	prevHi := int64(0)
	for i := 0; i < bucketCount; i++ {
		lo, hi := bucketRange(i)
		if lo != prevHi || hi <= lo {
			t.Fatalf("bucket %d: [%d, %d) after %d", i, lo, hi, prevHi)
		}
		if bucketOf(lo) != i || (hi-1 > lo && bucketOf(hi-1) != i) {
			t.Fatalf("bucket %d: [%d, %d) maps to %d and %d", i, lo, hi, bucketOf(lo), bucketOf(hi-1))
		}
		if lo >= 1<<62 {
			break
		}
		prevHi = hi
	}
}

func TestParseWrk(t *testing.T) {
	out := `Running 5s test @ http://127.0.0.1:8080/
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.10ms  312.00us   9.00ms   90.00%
  Latency Distribution
     50%  812.00us
     75%    1.20ms
     90%    1.50ms
     99%    2.00s
  250000 requests in 5.00s, 30.00MB read
  Socket errors: connect 1, read 2, write 0, timeout 3
  Non-2xx or 3xx responses: 4
Requests/sec:  50000.12
Transfer/sec:      6.00MB
`
	res, err := parseWrk([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if res.RPS != 50000.12 || res.P50 != 812 || res.P90 != 1500 || res.P99 != 2e6 || res.Errors != 10 {
		t.Errorf("got %+v", res)
	}
	if _, err := parseWrk([]byte("garbage")); err == nil {
		t.Error("no error for output without Requests/sec")
	}
}

func TestParseProc(t *testing.T) {
	stat := "4242 (bench server) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 5 0 100 0 0"
	cpu, err := parseStat([]byte(stat))
	if err != nil || cpu != 3*time.Second {
		t.Errorf("parseStat = %v, %v; want 3s", cpu, err)
	}
	if got := parseHWM([]byte("Name:\tx\nVmHWM:\t   20480 kB\nVmRSS:\t1 kB\n")); got != 20480 {
		t.Errorf("parseHWM = %d, want 20480", got)
	}
}

// TestRun drives a real server briefly and checks the counts add up.
func TestRun(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/teapot":
			w.WriteHeader(http.StatusTeapot)
		case "/close":
			w.Header().Set("Connection", "close")
		case "/chunked":
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	for _, tt := range []struct {
		engine   string
		path     string
		pipeline int
		non2xx   bool
	}{
		{"go", "/", 1, false}, {"go", "/", 4, false}, {"go", "/teapot", 1, true}, {"go", "/close", 1, false},
		{defaultEngine, "/", 1, false}, {defaultEngine, "/", 4, false}, {defaultEngine, "/teapot", 1, true}, {defaultEngine, "/close", 1, false},
	} {
		u, _ := url.Parse(srv.URL + tt.path)
		res, err := run(options{target: u, method: "GET", conns: 3, workers: 2, duration: 200 * time.Millisecond,
			warmup: 50 * time.Millisecond, pipeline: tt.pipeline, timeout: 2 * time.Second, engine: tt.engine})
		if err != nil {
			t.Fatal(err)
		}
		if res.Requests == 0 || res.Errors != 0 {
			t.Fatalf("%s %s pipeline %d: %+v", tt.engine, tt.path, tt.pipeline, res)
		}
		if tt.path == "/close" && res.Reconnects < res.Requests {
			t.Errorf("%s /close: %d reconnects for %d requests", tt.engine, res.Reconnects, res.Requests)
		}
		if got := res.Non2xx == res.Requests; got != tt.non2xx {
			t.Errorf("%s: non-2xx %d of %d", tt.path, res.Non2xx, res.Requests)
		}
		if res.Latency.P50 <= 0 || res.Latency.P50 > res.Latency.P99 || res.Latency.P99 > res.Latency.Max {
			t.Errorf("latency %+v", res.Latency)
		}
	}
}

func TestRunNothingListening(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	u, _ := url.Parse("http://" + addr + "/")
	if _, err := run(options{target: u, conns: 1, workers: 1, duration: time.Second, pipeline: 1, timeout: time.Second}); err == nil {
		t.Fatal("no error with nothing listening")
	}
}
