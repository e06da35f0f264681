package bench

// Server-sent events (plinth's Ctx.SSE), over loopback, in process:
//
//   - BenchmarkSSESend: one stream, the handler Sends b.N events (a 64-byte
//     data line with an id and a name) to a client that reads and discards;
//     ns/op and allocs/op of a Send, plain and behind compress (gzip).
//   - BenchmarkSSEFanout: 1,000 streams open; each iteration broadcasts one
//     event to all of them and waits until every client has decoded it;
//     reports p50 and p99 delivery latency (broadcast to client decode) over
//     all deliveries, plain and gzip.
//   - TestSSEIdleMemory (with PLINTH_BENCH_SSE_MEM=1): heap and stack after
//     GC per idle stream, 1,000 streams, plain and gzip, less the same
//     number of bare loopback connection pairs (the client side and the
//     TCP connections themselves, which any server pays); also gzip at
//     level 1 (compress.Config.Levels).
//
// Run:
//
//	cd bench && go test -run '^$' -bench 'SSE' -benchmem -benchtime 20x -count 3
//	cd bench && PLINTH_BENCH_SSE_MEM=1 go test -run TestSSEIdleMemory -v -count 1
//
// The figures (a noisy 2-core shared VM) are in BENCHMARKS.md, "Real-time:
// SSE".

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware/compress"
)

// sseBenchApp returns an App (New's default layer, compress when gz) with
// GET /sse running fn on an open stream.
func sseBenchApp(gz bool, fn func(c *plinth.Ctx, s *plinth.SSEStream) error) *plinth.App {
	return sseBenchAppLevel(gz, 0, fn)
}

// sseBenchAppLevel is sseBenchApp with gzip at level (0: the default).
func sseBenchAppLevel(gz bool, level int, fn func(c *plinth.Ctx, s *plinth.SSEStream) error) *plinth.App {
	app := plinth.New()
	app.Logger = slog.New(slog.DiscardHandler)
	if gz {
		cfg := compress.Config{}
		if level != 0 {
			cfg.Levels = map[string]int{compress.Gzip: level}
		}
		app.Use(compress.New(cfg))
	}
	app.Get("/sse", func(c *plinth.Ctx) error {
		s, err := c.SSE(plinth.SSEConfig{Heartbeat: plinth.Off})
		if err != nil {
			return err
		}
		return fn(c, s)
	})
	return app
}

// openStream opens GET /sse, gzip-encoded when gz, and returns the decoded
// body.
func openStream(ctx context.Context, tr *http.Transport, url string, gz bool) (io.Reader, io.Closer, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", url+"/sse", nil)
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return nil, nil, err
	}
	if !gz {
		return resp.Body, resp.Body, nil
	}
	if resp.Header.Get("Content-Encoding") != "gzip" {
		resp.Body.Close()
		return nil, nil, fmt.Errorf("Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		resp.Body.Close()
		return nil, nil, err
	}
	return zr, resp.Body, nil
}

func sseModes() []struct {
	name string
	gz   bool
} {
	return []struct {
		name string
		gz   bool
	}{{"identity", false}, {"gzip", true}}
}

func BenchmarkSSESend(b *testing.B) {
	for _, m := range sseModes() {
		b.Run(m.name, func(b *testing.B) {
			start := make(chan *testing.B)
			done := make(chan struct{})
			app := sseBenchApp(m.gz, func(c *plinth.Ctx, s *plinth.SSEStream) error {
				b := <-start
				e := plinth.Event{ID: "1234567", Event: "tick", Data: strings.Repeat("x", 64)}
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if err := s.Send(e); err != nil {
						b.Error(err)
						break
					}
				}
				b.StopTimer()
				close(done)
				return nil
			})
			srv := httptest.NewServer(app)
			defer srv.Close()
			tr := &http.Transport{DisableCompression: true}
			defer tr.CloseIdleConnections()
			r, c, err := openStream(b.Context(), tr, srv.URL, m.gz)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			go func() { _, _ = io.Copy(io.Discard, r) }()
			start <- b
			<-done
		})
	}
}

// hub broadcasts one event to every stream: a channel closed per event.
type hub struct {
	mu   sync.Mutex
	ch   chan struct{}
	data string
}

func newHub() *hub { return &hub{ch: make(chan struct{})} }

func (h *hub) wait() (<-chan struct{}, func() string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := h.ch
	return ch, func() string { h.mu.Lock(); defer h.mu.Unlock(); return h.data }
}

func (h *hub) publish(data string) {
	h.mu.Lock()
	h.data = data
	close(h.ch)
	h.ch = make(chan struct{})
	h.mu.Unlock()
}

const sseStreams = 1000

func BenchmarkSSEFanout(b *testing.B) {
	for _, m := range sseModes() {
		b.Run(fmt.Sprintf("%s/streams=%d", m.name, sseStreams), func(b *testing.B) {
			h := newHub()
			app := sseBenchApp(m.gz, func(c *plinth.Ctx, s *plinth.SSEStream) error {
				ch, data := h.wait()
				if err := s.Comment("ready"); err != nil {
					return err
				}
				for {
					select {
					case <-s.Done():
						return nil
					case <-ch:
					}
					d := data()
					ch, data = h.wait()
					if err := s.Send(plinth.Event{Event: "tick", Data: d}); err != nil {
						return err
					}
				}
			})
			srv := httptest.NewUnstartedServer(app)
			srv.Start()
			defer srv.Close()
			tr := &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: -1}
			defer tr.CloseIdleConnections()
			ctx, cancel := context.WithCancel(b.Context())
			defer cancel()
			lat := make(chan time.Duration, sseStreams)
			var ready sync.WaitGroup
			ready.Add(sseStreams)
			var failed atomic.Int32
			for range sseStreams {
				go func() {
					r, c, err := openStream(ctx, tr, srv.URL, m.gz)
					if err != nil {
						failed.Add(1)
						ready.Done()
						return
					}
					defer c.Close()
					br := bufio.NewReader(r)
					first := true
					for {
						line, err := br.ReadString('\n')
						if err != nil {
							if first {
								failed.Add(1)
								ready.Done()
							}
							return
						}
						if first && strings.HasPrefix(line, ": ready") {
							first = false
							ready.Done()
						}
						if v, ok := strings.CutPrefix(line, "data: "); ok {
							ns, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
							lat <- time.Duration(time.Now().UnixNano() - ns)
						}
					}
				}()
			}
			ready.Wait()
			if n := failed.Load(); n > 0 {
				b.Fatalf("%d streams failed to open", n)
			}
			all := make([]time.Duration, 0, b.N*sseStreams)
			b.ResetTimer()
			for range b.N {
				h.publish(strconv.FormatInt(time.Now().UnixNano(), 10))
				for range sseStreams {
					select {
					case d := <-lat:
						all = append(all, d)
					case <-time.After(30 * time.Second):
						b.Fatal("an event was not delivered within 30s")
					}
				}
			}
			b.StopTimer()
			slices.Sort(all)
			b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
			cancel()
		})
	}
}

// heapAndStack is the heap in use and the goroutine stacks, after GC.
func heapAndStack() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc + ms.StackInuse
}

// TestSSEIdleMemory measures heap and stack per idle stream (see the file's
// comment). Opt-in: it holds 2,000 sockets for a few seconds.
func TestSSEIdleMemory(t *testing.T) {
	if os.Getenv("PLINTH_BENCH_SSE_MEM") == "" {
		t.Skip("set PLINTH_BENCH_SSE_MEM=1 to measure memory per idle SSE stream")
	}
	// Baseline: bare connection pairs, the client holding a raw conn and
	// the server a goroutine blocked reading it.
	base := func() float64 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		var held sync.WaitGroup
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				held.Add(1)
				go func() {
					defer held.Done()
					var b [1]byte
					_, _ = c.Read(b[:])
					c.Close()
				}()
			}
		}()
		before := heapAndStack()
		conns := make([]net.Conn, 0, sseStreams)
		for range sseStreams {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		time.Sleep(200 * time.Millisecond)
		after := heapAndStack()
		for _, c := range conns {
			c.Close()
		}
		held.Wait()
		return float64(after-before) / sseStreams
	}()
	t.Logf("bare loopback connection pair (client conn + server goroutine): %.0f B", base)
	modes := append(sseModes(), struct {
		name string
		gz   bool
	}{"gzip-level-1", true})
	for _, m := range modes {
		level := 0
		if m.name == "gzip-level-1" {
			level = 1
		}
		var opened sync.WaitGroup
		app := sseBenchAppLevel(m.gz, level, func(c *plinth.Ctx, s *plinth.SSEStream) error {
			if err := s.Comment("ready"); err != nil {
				return err
			}
			opened.Done()
			<-s.Done()
			return nil
		})
		app.Config.Logger = slog.New(slog.DiscardHandler)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan error, 1)
		go func() { served <- app.Serve(ctx, ln) }()
		addr := ln.Addr().String()
		before := heapAndStack()
		opened.Add(sseStreams)
		conns := make([]net.Conn, 0, sseStreams)
		req := "GET /sse HTTP/1.1\r\nHost: x\r\n\r\n"
		if m.gz {
			req = "GET /sse HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n"
		}
		for range sseStreams {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(c, req); err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		opened.Wait()
		time.Sleep(200 * time.Millisecond)
		after := heapAndStack()
		per := float64(after-before) / sseStreams
		t.Logf("%s: %.0f B per idle stream (heap+stack after GC, both ends), %.0f B over the bare connection pair", m.name, per, per-base)
		cancel()
		<-served
		for _, c := range conns {
			c.Close()
		}
	}
}
