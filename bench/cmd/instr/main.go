// Command instr serves one scenario with one framework over real HTTP on
// loopback and drives it from the same process with a fixed number of
// keep-alive requests, then exits: a program for
// valgrind --tool=callgrind, whose instruction counts, unlike wall-clock
// times, repeat exactly whatever else the machine is doing. run-instr.sh
// runs it under callgrind for each framework and reports instructions per
// request on the server's side (everything below net/http's per-connection
// loop) and in the whole process.
//
//	instr -framework plinth-new -scenario minimal -n 20000 -c 4
//
// Frameworks: those of bench-server that are net/http handlers (fiber is
// not). plinth and plinth-new are served by App.Serve with its default
// limits, std-limits and std-defaults by bench.NewLimitedServer on
// bench.LimitListener, the others by a zero-value http.Server.
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
	"github.com/plinth-go/plinth/bench"
)

func main() {
	fw := flag.String("framework", "plinth-new", "framework (plinth-new, plinth, std-limits, std-defaults, std, httprouter, chi, gin, echo)")
	sc := flag.String("scenario", "minimal", "scenario")
	n := flag.Int("n", 20000, "requests to send (0: start, serve nothing, exit: the set-up cost to subtract)")
	c := flag.Int("c", 4, "connections")
	flag.Parse()
	if err := run(*fw, *sc, *n, *c); err != nil {
		fmt.Fprintln(os.Stderr, "instr:", err)
		os.Exit(1)
	}
}

func run(fw, scenario string, n, conns int) error {
	sc, err := bench.LoadScenario(scenario)
	if err != nil {
		return err
	}
	sc.Only = nil
	name := fw
	if fw == "std-limits" || fw == "std-defaults" && sc.Stack != bench.StackNone {
		name = "std"
	}
	f, ok := bench.FrameworkNamed(name)
	if !ok || fw == "fiber" {
		return fmt.Errorf("unknown or non-net/http framework %q", fw)
	}
	h, err := f.BuildScenario(sc)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	stop := cancel // App.Serve returns when ctx ends; a plain server on Close
	switch app, isApp := h.(*plinth.App); {
	case isApp:
		app.Logger = slog.New(slog.DiscardHandler)
		go func() { served <- app.Serve(ctx, ln) }()
	case fw == "std-limits" || fw == "std-defaults":
		srv := bench.NewLimitedServer(h)
		go func() { served <- srv.Serve(bench.LimitListener(ln)) }()
		stop = func() { cancel(); srv.Close() }
	default:
		srv := &http.Server{Handler: h}
		go func() { served <- srv.Serve(ln) }()
		stop = func() { cancel(); srv.Close() }
	}
	rq := sc.Requests[0]
	raw := []byte(rq.Method + " " + rq.Path + " HTTP/1.1\r\nHost: bench\r\n\r\n")
	if n > 0 {
		if err := load(ln.Addr().String(), raw, n, conns, rq.Status); err != nil {
			return err
		}
	}
	stop()
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
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
