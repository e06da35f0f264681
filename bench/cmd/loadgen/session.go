package main

import (
	"errors"
	"fmt"
	"time"
)

// runCtx is what every connection of a run shares.
type runCtx struct {
	addr        string
	req         []byte // -pipeline requests, back to back
	o           options
	measureFrom time.Time // the end of the warm-up
	end         time.Time
}

// session is one connection's progress, whatever engine drives it: the
// bytes read and not yet parsed, the parser, and the batch in flight.
type session struct {
	st      *connStats
	buf     []byte // 64 KiB; buf[:n] holds unparsed bytes
	n       int
	p       parser
	sent    time.Time // when the batch in flight was written
	pending int       // responses of the batch still to come
}

const bufSize = 64 << 10

func newSession(st *connStats, head bool) *session {
	return &session{st: st, buf: make([]byte, bufSize), p: parser{head: head}}
}

// reset forgets a closed connection's state.
func (s *session) reset() {
	s.n, s.pending = 0, 0
	s.p = parser{head: s.p.head}
}

// fail counts an error (only inside the measured window).
func (s *session) fail(rc *runCtx, err error) {
	if t := time.Now(); t.After(rc.measureFrom) && t.Before(rc.end) {
		s.st.errors++
		if s.st.firstErr == nil {
			s.st.firstErr = err
		}
	}
}

// consume parses what s.buf holds, recording each complete response. It
// reports whether the batch is complete and whether the server asked to
// close the connection.
func (s *session) consume(rc *runCtx) (batchDone, closeConn bool, err error) {
	off := 0
	for s.pending > 0 {
		n, done, err := s.p.feed(s.buf[off:s.n], off == 0 && s.n == len(s.buf))
		off += n
		if err != nil {
			return false, true, err
		}
		if !done {
			if n == 0 {
				break // more bytes needed
			}
			continue
		}
		now := time.Now()
		s.pending--
		if now.After(rc.measureFrom) && !now.After(rc.end) {
			st := s.st
			st.requests++
			st.hist.record(now.Sub(s.sent))
			st.statuses[min(max(s.p.resp.status, 0), len(st.statuses)-1)]++
			if s.p.resp.status < 200 || s.p.resp.status > 299 {
				st.non2xx++
			}
		}
		if s.p.resp.close {
			if s.pending > 0 {
				err = errors.New("server closed the connection inside a pipeline")
			}
			s.compact(off)
			return s.pending == 0, true, err
		}
	}
	s.compact(off)
	if s.pending == 0 && s.n > 0 {
		return true, true, fmt.Errorf("%w: %d bytes after the last response", errMalformed, s.n)
	}
	return s.pending == 0, false, nil
}

func (s *session) compact(off int) {
	if off > 0 {
		s.n = copy(s.buf, s.buf[off:s.n])
	}
}
