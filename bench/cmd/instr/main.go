// Command instr serves one scenario with one framework over real HTTP on
// loopback for valgrind --tool=callgrind, whose instruction counts, unlike
// wall-clock times, hardly depend on what else the machine is doing (runs
// agree within a percent or two: the garbage collector's timing).
// run-instr.sh runs the server under callgrind and the client as a separate
// process, so that only the server is counted:
//
//	instr -framework plinth-new -scenario minimal -addr-file /tmp/a -conns 4   # server: exits when 4 connections have closed
//	instr -client -addr 127.0.0.1:PORT -scenario minimal -n 20000 -c 4         # client: n keep-alive requests over c connections
//
// A run with -n 0 (the client connects and closes at once) gives the set-up
// cost to subtract. In-process mode (-n without -client or -addr-file) does
// both in one process, for tests.
//
// Frameworks: those of bench-server that are net/http handlers (fiber is
// not). plinth and plinth-new are served by App.Serve with its default
// limits, std-limits and std-defaults by httpserve.NewLimitedServer on
// httpserve.LimitListener, the others by a zero-value http.Server.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/bench/internal/httpserve"
	"github.com/plinth-go/plinth/bench/internal/suite"
)

func main() {
	fw := flag.String("framework", "plinth-new", "framework (plinth-new, plinth, std-limits, std-defaults, std, httprouter, chi, gin, echo)")
	sc := flag.String("scenario", "minimal", "scenario")
	n := flag.Int("n", 20000, "requests to send (0: connect and close only, the set-up cost to subtract)")
	c := flag.Int("c", 4, "connections")
	client := flag.Bool("client", false, "client mode: load -addr")
	addr := flag.String("addr", "", "client mode: the server's address")
	addrFile := flag.String("addr-file", "", "server mode: write the listening address here, exit when -conns connections have closed")
	conns := flag.Int("conns", 4, "server mode: connections to wait for")
	flag.Parse()
	var err error
	switch {
	case *client:
		err = runClient(*addr, *sc, *n, *c)
	case *addrFile != "":
		err = serveUntilClosed(*fw, *sc, *addrFile, *conns)
	default:
		err = run(*fw, *sc, *n, *c)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "instr:", err)
		os.Exit(1)
	}
}

// serveUntilClosed serves fw until conns connections have been accepted and
// closed again, then exits the process (callgrind writes its counts at exit).
func serveUntilClosed(fw, scenario, addrFile string, conns int) error {
	h, _, err := handler(fw, scenario)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	cl := &closingListener{Listener: ln, left: int64(conns)}
	if err := os.WriteFile(addrFile, []byte(ln.Addr().String()), 0o644); err != nil {
		return err
	}
	stop, served := serve(fw, h, cl)
	defer stop()
	return <-served
}

// closingListener exits the process when its last awaited connection closes.
type closingListener struct {
	net.Listener
	left int64
	mu   sync.Mutex
}

func (l *closingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &closingConn{Conn: c, l: l}, nil
}

type closingConn struct {
	net.Conn
	l    *closingListener
	once sync.Once
}

func (c *closingConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.left--
		done := c.l.left == 0
		c.l.mu.Unlock()
		if done {
			os.Exit(0)
		}
	})
	return err
}

// runClient sends n requests of the scenario to addr over c connections.
func runClient(addr, scenario string, n, c int) error {
	sc, err := suite.LoadScenario(scenario)
	if err != nil {
		return err
	}
	rq := sc.Requests[0]
	raw := []byte(rq.Method + " " + rq.Path + " HTTP/1.1\r\nHost: bench\r\n\r\n")
	return load(addr, raw, n, c, rq.Status)
}

// run serves fw and loads it from the same process (for tests).
func run(fw, scenario string, n, conns int) error {
	h, sc, err := handler(fw, scenario)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	stop, served := serve(fw, h, ln)
	rq := sc.Requests[0]
	raw := []byte(rq.Method + " " + rq.Path + " HTTP/1.1\r\nHost: bench\r\n\r\n")
	if n > 0 {
		if err := load(ln.Addr().String(), raw, n, conns, rq.Status); err != nil {
			stop()
			return err
		}
	}
	stop()
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

// handler builds fw's handler for the scenario, as bench-server does.
func handler(fw, scenario string) (http.Handler, suite.Scenario, error) {
	sc, err := suite.LoadScenario(scenario)
	if err != nil {
		return nil, sc, err
	}
	h, err := httpserve.Handler(fw, sc)
	return h, sc, err
}

// serve serves h on ln the way bench-server does; stop ends it and served
// yields Serve's result.
func serve(fw string, h http.Handler, ln net.Listener) (stop func(), served <-chan error) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan error, 1)
	stop = cancel // App.Serve returns when ctx ends; a plain server on Close
	switch app, isApp := h.(*plinth.App); {
	case isApp:
		app.Logger = slog.New(slog.DiscardHandler)
		go func() { ch <- app.Serve(ctx, ln) }()
	case httpserve.Limited(fw):
		srv := httpserve.NewLimitedServer(h)
		go func() { ch <- srv.Serve(httpserve.LimitListener(ln)) }()
		stop = func() { cancel(); srv.Close() }
	default:
		srv := &http.Server{Handler: h}
		go func() { ch <- srv.Serve(ln) }()
		stop = func() { cancel(); srv.Close() }
	}
	return stop, ch
}

// load sends n requests over conns keep-alive connections, one at a time on
// each, and checks every status.
func load(addr string, req []byte, n, conns, status int) error {
	var left atomic.Int64
	left.Store(int64(n))
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			br := bufio.NewReaderSize(conn, 16<<10)
			want := []byte(" " + strconv.Itoa(status) + " ")
			for left.Add(-1) >= 0 {
				if _, err := conn.Write(req); err != nil {
					errs <- err
					return
				}
				if err := readResponse(br, want); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// readResponse reads one response with a Content-Length or chunked body.
func readResponse(br *bufio.Reader, want []byte) error {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return err
	}
	if !bytes.Contains(line, want) {
		return fmt.Errorf("unexpected status line %q", bytes.TrimSpace(line))
	}
	length, chunked := -1, false
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(line) <= 2 {
			break
		}
		k, v, _ := bytes.Cut(line, []byte(":"))
		switch {
		case bytes.EqualFold(k, []byte("Content-Length")):
			length, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
		case bytes.EqualFold(k, []byte("Transfer-Encoding")):
			chunked = true
		}
	}
	if !chunked {
		_, err := io.CopyN(io.Discard, br, int64(length))
		return err
	}
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		size, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 64)
		if err != nil {
			return err
		}
		if _, err := io.CopyN(io.Discard, br, size+2); err != nil {
			return err
		}
		if size == 0 {
			return nil
		}
	}
}
