//go:build linux

package main

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"sync"
	"syscall"
	"time"
)

const defaultEngine = "epoll"

// runEpoll drives the connections from -workers event loops, each on its own
// locked OS thread with its own epoll set, over raw non-blocking sockets:
// per response one read, per request one write, and a share of one
// epoll_wait, as wrk does; no scheduler wake-ups. Connecting is blocking
// (immediate on loopback).
func runEpoll(rc *runCtx, stats []*connStats) {
	workers := min(rc.o.workers, len(stats))
	var wg sync.WaitGroup
	for w := range workers {
		var mine []*connStats
		for i := w; i < len(stats); i += workers {
			mine = append(mine, stats[i])
		}
		wg.Go(func() { epollWorker(rc, mine) })
	}
	wg.Wait()
}

type econn struct {
	s       *session
	fd      int // -1 when closed
	retryAt time.Time
}

func epollWorker(rc *runCtx, stats []*connStats) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	conns := make([]*econn, len(stats))
	for i, st := range stats {
		conns[i] = &econn{s: newSession(st, rc.o.method == "HEAD"), fd: -1}
	}
	sa, err := sockaddr(rc.addr)
	if err == nil {
		var epfd int
		if epfd, err = syscall.EpollCreate1(syscall.EPOLL_CLOEXEC); err == nil {
			defer syscall.Close(epfd)
			w := &epollLoop{rc: rc, epfd: epfd, sa: sa, conns: conns}
			w.run()
			return
		}
	}
	for _, c := range conns {
		c.s.st.errors++
		c.s.st.firstErr = err
	}
}

type epollLoop struct {
	rc    *runCtx
	epfd  int
	sa    syscall.Sockaddr
	conns []*econn
}

func (w *epollLoop) run() {
	for i, c := range w.conns {
		w.open(i, c)
	}
	events := make([]syscall.EpollEvent, 256)
	lastCheck := time.Now()
	for {
		now := time.Now()
		if !now.Before(w.rc.end) {
			break
		}
		wait := min(w.rc.end.Sub(now), 10*time.Millisecond)
		n, err := syscall.EpollWait(w.epfd, events, int(max(wait/time.Millisecond, 1)))
		if err != nil && !errors.Is(err, syscall.EINTR) {
			for _, c := range w.conns {
				c.s.fail(w.rc, fmt.Errorf("epoll_wait: %w", err))
			}
			break
		}
		for _, ev := range events[:max(n, 0)] {
			i := int(ev.Fd)
			if c := w.conns[i]; c.fd >= 0 {
				w.readable(i, c)
			}
		}
		// Reopen what failed to connect, and time out silent connections.
		if now = time.Now(); now.Sub(lastCheck) >= 10*time.Millisecond {
			lastCheck = now
			for i, c := range w.conns {
				switch {
				case c.fd < 0 && !now.Before(c.retryAt):
					w.open(i, c)
				case c.fd >= 0 && c.s.pending > 0 && now.Sub(c.s.sent) > w.rc.o.timeout:
					c.s.fail(w.rc, fmt.Errorf("no response within %v", w.rc.o.timeout))
					w.drop(i, c, true)
				}
			}
		}
	}
	for i, c := range w.conns {
		if c.fd >= 0 {
			w.drop(i, c, false)
		}
	}
}

// readable reads what arrived on c, records the responses it completes and
// sends the next batch when the last one is in.
func (w *epollLoop) readable(i int, c *econn) {
	k, err := syscall.Read(c.fd, c.s.buf[c.s.n:])
	if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EINTR) {
		return
	}
	if err != nil || k == 0 {
		if err == nil {
			err = errors.New("connection closed by the server")
		}
		c.s.fail(w.rc, err)
		w.drop(i, c, true)
		return
	}
	c.s.n += k
	done, closeConn, err := c.s.consume(w.rc)
	if err != nil {
		c.s.fail(w.rc, err)
	}
	if closeConn || err != nil {
		w.drop(i, c, true)
		return
	}
	if done {
		w.send(i, c)
	}
}

// open connects c (blocking), registers it and sends its first batch; a
// failure is counted and retried after 10 ms.
func (w *epollLoop) open(i int, c *econn) {
	if !time.Now().Before(w.rc.end) {
		return
	}
	fd, err := dialRaw(w.sa)
	if err == nil {
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(i)}
		if err = syscall.EpollCtl(w.epfd, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
			syscall.Close(fd)
		}
	}
	if err != nil {
		c.s.fail(w.rc, fmt.Errorf("connect %s: %w", w.rc.addr, err))
		c.retryAt = time.Now().Add(10 * time.Millisecond)
		return
	}
	c.fd = fd
	c.s.reset()
	w.send(i, c)
}

// send writes the next batch of requests, unless the run is over.
func (w *epollLoop) send(i int, c *econn) {
	c.s.sent = time.Now()
	if !c.s.sent.Before(w.rc.end) {
		return
	}
	c.s.pending = w.rc.o.pipeline
	req := w.rc.req
	for len(req) > 0 {
		k, err := syscall.Write(c.fd, req)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			// The send buffer of a connection whose previous answers are
			// all read is empty: EAGAIN here means something is wrong.
			c.s.fail(w.rc, fmt.Errorf("write: %w", err))
			w.drop(i, c, false)
			c.retryAt = time.Now().Add(10 * time.Millisecond)
			return
		}
		req = req[k:]
	}
}

// drop closes c; reopen opens a new connection at once.
func (w *epollLoop) drop(i int, c *econn, reopen bool) {
	syscall.EpollCtl(w.epfd, syscall.EPOLL_CTL_DEL, c.fd, nil)
	syscall.Close(c.fd)
	c.fd = -1
	if time.Now().Before(w.rc.end) {
		c.s.st.reconnects++
	}
	if reopen {
		w.open(i, c)
	}
}

func sockaddr(addr string) (syscall.Sockaddr, error) {
	ta, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return nil, err
	}
	if ip4 := ta.IP.To4(); ip4 != nil {
		sa := &syscall.SockaddrInet4{Port: ta.Port}
		copy(sa.Addr[:], ip4)
		return sa, nil
	}
	sa := &syscall.SockaddrInet6{Port: ta.Port}
	copy(sa.Addr[:], ta.IP.To16())
	return sa, nil
}

// dialRaw opens a TCP connection to sa (blocking connect, then
// non-blocking, Nagle off as net.Dial does).
func dialRaw(sa syscall.Sockaddr) (int, error) {
	family := syscall.AF_INET
	if _, ok := sa.(*syscall.SockaddrInet6); ok {
		family = syscall.AF_INET6
	}
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for {
		err = syscall.Connect(fd, sa)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err == nil {
		err = syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
	}
	if err == nil {
		err = syscall.SetNonblock(fd, true)
	}
	if err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}
