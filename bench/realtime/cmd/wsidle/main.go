// Command wsidle measures the memory of idle WebSocket connections held by a
// server in another process.
//
//	wsidle -serve plinth -addr 127.0.0.1:9300     # the server (plinth, coder, gorilla or gws)
//	wsidle -dial 127.0.0.1:9300 -n 10000          # the client: baseline, n handshakes, held, measured
//
// The client asks the server's /stats (after runtime.GC and
// debug.FreeOSMemory) before and after opening n connections and prints the
// difference per connection: RSS (VmRSS of /proc/self/status) and the Go
// heap plus goroutine stacks in use. The client opens the connections one
// after another with a raw handshake and never reads from them, so that
// nothing but the server's idle state is measured. run-ws-idle.sh runs every
// library in one go.
//
//	wsidle -dial 127.0.0.1:9300 -echo 50 -size 64 -d 5s  # 50 connections echo in lock-step
//
// prints messages per second and the server's allocations per message
// (run-ws-echo.sh: pinned, alternating rounds, under the wall-clock lock).
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/bench/realtime"
)

type stats struct {
	RSS        int64 `json:"rss"`
	HeapStack  int64 `json:"heap_stack"`
	Stack      int64 `json:"stack"`
	Goroutines int   `json:"goroutines"`
	Mallocs    int64 `json:"mallocs"`
}

func main() {
	serve := flag.String("serve", "", "serve this library's echo server: plinth, coder, gorilla or gws")
	addr := flag.String("addr", "127.0.0.1:9300", "the server's address (-serve)")
	dial := flag.String("dial", "", "measure the server at this address")
	n := flag.Int("n", 10000, "idle connections to hold (-dial)")
	echo := flag.Int("echo", 0, "instead of idle connections, this many connections echo in lock-step (-dial)")
	size := flag.Int("size", 64, "message size of -echo, bytes")
	dur := flag.Duration("d", 5*time.Second, "duration of -echo")
	count := flag.Int("count", 0, "with -echo: this many messages per connection instead of -d, and no /stats (for run-ws-instr.sh)")
	flag.Parse()
	switch {
	case *dial != "" && *echo > 0 && *count > 0:
		runCount(*dial, *echo, *size, *count)
	case *dial != "" && *echo > 0:
		runEcho(*dial, *echo, *size, *dur)
	case *serve != "":
		runServer(*serve, *addr)
	case *dial != "":
		runClient(*dial, *n)
	default:
		flag.Usage()
		os.Exit(2)
	}
}

func measure(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Has("quit") { // run-ws-instr.sh: exit cleanly under callgrind (a signal upsets it)
		os.Exit(0)
	}
	for range 3 {
		runtime.GC()
	}
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := stats{RSS: rss(), HeapStack: int64(ms.HeapInuse + ms.StackInuse), Stack: int64(ms.StackInuse), Mallocs: int64(ms.Mallocs), Goroutines: runtime.NumGoroutine()}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(s)
}

func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return -1
}

// runServer serves until SIGTERM or SIGINT, then exits 0 (so that a
// profiler around it writes its output).
func runServer(lib, addr string) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	h := realtime.EchoHandler(lib, measure)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	if app, ok := h.(*plinth.App); ok {
		app.Config.MaxConnections = plinth.Off // the listener's cap (10,000 by default) would refuse the last ones
		app.Config.ShutdownTimeout = time.Second
		_ = app.Serve(ctx, ln)
		os.Exit(0)
	}
	go func() { log.Fatal((&http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}).Serve(ln)) }()
	<-ctx.Done()
	os.Exit(0)
}

// runCount: conns connections each echo count messages in lock-step.
func runCount(addr string, conns, size, count int) {
	var wg sync.WaitGroup
	for range conns {
		c := newEchoConn(addr, size)
		wg.Go(func() {
			for range count {
				c.roundTrip()
			}
			c.nc.Close()
		})
	}
	wg.Wait()
}

func getStats(addr string) stats {
	res, err := http.Get("http://" + addr + "/stats")
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	var s stats
	if err := json.NewDecoder(res.Body).Decode(&s); err != nil {
		log.Fatal(err)
	}
	return s
}

func runClient(addr string, n int) {
	// Warm the server (first handshake paths, pools) before the baseline.
	for range 50 {
		c := handshake(addr)
		c.Close()
	}
	time.Sleep(200 * time.Millisecond)
	before := getStats(addr)
	conns := make([]net.Conn, 0, n)
	for range n {
		conns = append(conns, handshake(addr))
	}
	time.Sleep(time.Second)
	after := getStats(addr)
	per := func(a, b int64) float64 { return float64(b-a) / float64(n) / 1024 }
	fmt.Printf("conns=%d rss_per_conn_kib=%.1f heap_stack_per_conn_kib=%.1f (stack %.1f) goroutines_per_conn=%.2f rss_total_mib=%.1f\n",
		n, per(before.RSS, after.RSS), per(before.HeapStack, after.HeapStack), per(before.Stack, after.Stack),
		float64(after.Goroutines-before.Goroutines)/float64(n), float64(after.RSS)/(1<<20))
	for _, c := range conns {
		c.Close()
	}
}

func handshake(addr string) net.Conn {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	var k [16]byte
	_, _ = rand.Read(k[:])
	req := "GET /ws HTTP/1.1\r\nHost: " + addr + "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + base64.StdEncoding.EncodeToString(k[:]) + "\r\n\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		log.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReaderSize(c, 512), nil)
	if err != nil {
		log.Fatal(err)
	}
	if res.StatusCode != http.StatusSwitchingProtocols {
		log.Fatalf("handshake: status %d", res.StatusCode)
	}
	return c
}

func runEcho(addr string, conns, size int, d time.Duration) {
	clients := make([]*echoConn, conns)
	for i := range clients {
		clients[i] = newEchoConn(addr, size)
	}
	for _, c := range clients { // warm-up
		for range 20 {
			c.roundTrip()
		}
	}
	before := getStats(addr)
	start := time.Now()
	counts := make([]int, conns)
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() {
			for time.Since(start) < d {
				c.roundTrip()
				counts[i]++
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	after := getStats(addr)
	total := 0
	for _, n := range counts {
		total += n
	}
	// /stats itself allocates a little (its request, the JSON); a few hundred
	// allocations over a million messages do not show.
	fmt.Printf("conns=%d size=%d msgs_per_s=%.0f allocs_per_msg=%.2f\n", conns, size,
		float64(total)/elapsed.Seconds(), float64(after.Mallocs-before.Mallocs)/float64(total))
}

// echoConn sends one masked text frame, built once, and reads its echo.
type echoConn struct {
	nc    net.Conn
	br    *bufio.Reader
	frame []byte
	buf   []byte
}

func newEchoConn(addr string, size int) *echoConn {
	nc := handshake(addr)
	frame := []byte{0x81}
	if size < 126 {
		frame = append(frame, 0x80|byte(size))
	} else {
		frame = append(frame, 0x80|126, byte(size>>8), byte(size))
	}
	frame = append(frame, 0, 0, 0, 0) // a zero mask key: the payload as is
	frame = append(frame, strings.Repeat("x", size)...)
	hdr := 2
	if size >= 126 {
		hdr = 4
	}
	return &echoConn{nc: nc, br: bufio.NewReaderSize(nc, 64<<10), frame: frame, buf: make([]byte, hdr+size)}
}

func (c *echoConn) roundTrip() {
	if _, err := c.nc.Write(c.frame); err != nil {
		log.Fatal(err)
	}
	if _, err := io.ReadFull(c.br, c.buf); err != nil {
		log.Fatal(err)
	}
}
