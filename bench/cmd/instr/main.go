// Command instr serves one scenario with one framework over real HTTP on
// loopback for valgrind --tool=callgrind, whose instruction counts, unlike
// wall-clock times, hardly depend on what else the machine is doing (runs
// agree within a percent or two with the garbage collector on: its timing;
// within a fraction of a percent with GOGC=off).
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
// cmd/instr-gate runs the third mode, one server process for several
// scenarios, under callgrind --dump-before=main.mark:
//
//	instr -framework plinth -scenarios minimal,json   # prints "addr SCENARIO HOST:PORT" per scenario, then "ready";
//	                                                  # each "mark" line on stdin calls mark and answers "ok"; exits at EOF
//
// so that callgrind writes (and zeroes) its counts exactly where the client
// says, with nothing to subtract; "instrument" and "uninstrument" switch
// callgrind's instrumentation on and off (client requests, amd64 only), so
// that warm-ups run at valgrind's uninstrumented speed.
//
// Frameworks: those of bench-server that are net/http handlers (fiber is
// not), plinth-fast and plinth-new-fast (plinth and plinth-new on Plinth's
// own engine, Config.Engine "fast") and fasthttp (fasthttp's native server
// and handler, minimal and json; httpserve/engine.go). plinth and plinth-new are served by App.Serve with its default
// limits, std-limits and std-defaults by httpserve.NewLimitedServer on
// httpserve.LimitListener, the others by a zero-value http.Server.
// Scenarios: suite's, validated-json (the typed api operation; plinth,
// plinth-new, huma, gin, echo) and headers-0 ... headers-10 (std only: a
// plain http.HandlerFunc writing N header lines; httpserve/scenarios.go).
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/bench/internal/httpserve"
)

func main() {
	fw := flag.String("framework", "plinth-new", "framework (plinth-new, plinth, plinth-new-fast, plinth-fast, fasthttp, std-limits, std-defaults, std, httprouter, chi, gin, echo)")
	sc := flag.String("scenario", "minimal", "scenario")
	scs := flag.String("scenarios", "", "gate mode: serve these comma-separated scenarios, one listener each, and mark on request (stdin)")
	n := flag.Int("n", 20000, "requests to send (0: connect and close only, the set-up cost to subtract)")
	c := flag.Int("c", 4, "connections")
	client := flag.Bool("client", false, "client mode: load -addr")
	addr := flag.String("addr", "", "client mode: the server's address")
	addrFile := flag.String("addr-file", "", "server mode: write the listening address here, exit when -conns connections have closed")
	conns := flag.Int("conns", 4, "server mode: connections to wait for")
	flag.Parse()
	var err error
	switch {
	case *scs != "":
		err = serveMarked(*fw, strings.Split(*scs, ","))
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

// serveMarked serves each scenario with fw on its own loopback listener,
// prints the addresses, then calls mark for every "mark" line on stdin and
// answers "ok"; it exits the process at the end of stdin.
func serveMarked(fw string, scenarios []string) error {
	for _, sc := range scenarios {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		if _, _, err := serveNamed(fw, sc, ln); err != nil {
			return err
		}
		fmt.Printf("addr %s %s\n", sc, ln.Addr())
	}
	fmt.Println("ready")
	// Read stdin through the poller (non-blocking), as the connections are
	// read: a blocking read would hold a thread in a system call, which the
	// scheduler works around on its own clock.
	if err := syscall.SetNonblock(0, true); err != nil {
		return err
	}
	in := bufio.NewScanner(os.NewFile(0, "stdin"))
	for in.Scan() {
		switch in.Text() {
		case "mark":
			mark()
		case "instrument":
			callgrind(callgrindStartInstrumentation)
		case "uninstrument":
			callgrind(callgrindStopInstrumentation)
		default:
			return fmt.Errorf("unknown command %q", in.Text())
		}
		os.Stdout.WriteString("ok\n")
	}
	if err := in.Err(); err != nil {
		return err
	}
	os.Exit(0)
	return nil
}

// mark is where callgrind, run with --dump-before=main.mark, writes the
// counts since the last mark and zeroes them: only its entry matters, so it
// does nothing, but it must stay a call.
//
//go:noinline
func mark() {}

// serveUntilClosed serves fw until conns connections have been accepted and
// closed again, then exits the process (callgrind writes its counts at exit).
func serveUntilClosed(fw, scenario, addrFile string, conns int) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	cl := &closingListener{Listener: ln, left: int64(conns)}
	stop, served, err := serveNamed(fw, scenario, cl)
	if err != nil {
		return err
	}
	defer stop()
	if err := os.WriteFile(addrFile, []byte(ln.Addr().String()), 0o644); err != nil {
		return err
	}
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

// runClient sends n requests of the scenario to addr over c connections,
// taking its requests in turn (github-all: each route in turn).
func runClient(addr, scenario string, n, c int) error {
	reqs, err := httpserve.Requests(scenario)
	if err != nil {
		return err
	}
	return httpserve.Load(addr, reqs, n, c)
}

// run serves fw and loads it from the same process (for tests).
func run(fw, scenario string, n, conns int) error {
	reqs, err := httpserve.Requests(scenario)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	stop, served, err := serveNamed(fw, scenario, ln)
	if err != nil {
		return err
	}
	if err := httpserve.Load(ln.Addr().String(), reqs, n, conns); err != nil {
		stop()
		return err
	}
	stop()
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

// serveNamed serves the scenario with fw on ln: fasthttp's native server
// for fasthttp, else serve.
func serveNamed(fw, scenario string, ln net.Listener) (stop func(), served <-chan error, err error) {
	if fw == httpserve.FastHTTP {
		return httpserve.ServeFastHTTP(scenario, ln)
	}
	h, err := httpserve.HandlerNamed(fw, scenario)
	if err != nil {
		return nil, nil, err
	}
	stop, served = serve(fw, h, ln)
	return stop, served, nil
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
