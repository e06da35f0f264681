package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// runGoroutines drives every connection from its own goroutine with Go's
// net package: portable, but each response costs the scheduler's wake-ups
// besides the reads and writes.
func runGoroutines(rc *runCtx, stats []*connStats) {
	var wg sync.WaitGroup
	for _, st := range stats {
		wg.Go(func() { goLoop(rc, newSession(st, rc.o.method == "HEAD")) })
	}
	wg.Wait()
}

func goLoop(rc *runCtx, s *session) {
	var conn net.Conn
	var deadlineSet time.Time // when the connection's deadline was last moved
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	for time.Now().Before(rc.end) {
		if conn == nil {
			c, err := net.DialTimeout("tcp", rc.addr, rc.o.timeout)
			if err != nil {
				s.fail(rc, err)
				time.Sleep(10 * time.Millisecond)
				continue
			}
			conn, deadlineSet = c, time.Time{}
			s.reset()
		}
		s.sent = time.Now()
		// Moving the deadline costs timer work: do it when half the
		// timeout has passed, not per request.
		if s.sent.After(deadlineSet.Add(rc.o.timeout / 2)) {
			conn.SetDeadline(s.sent.Add(rc.o.timeout))
			deadlineSet = s.sent
		}
		s.pending = rc.o.pipeline
		_, err := conn.Write(rc.req)
		closeConn := false
		for err == nil {
			var k int
			k, err = conn.Read(s.buf[s.n:])
			s.n += k
			if err != nil {
				break
			}
			var done bool
			done, closeConn, err = s.consume(rc)
			if done || closeConn {
				break
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("connection closed by the server: %w", err)
			}
			s.fail(rc, err)
			closeConn = true
		}
		if closeConn {
			conn.Close()
			conn = nil
			s.st.reconnects++
		}
	}
}
