package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// watchInstances samples, every 250 ms until ctx ends, the resident memory
// of every process serving as each instance (VmRSS, and VmHWM for the
// peak), finding them from the PID files and as children of the known ones
// (an upgrade's new process, before it writes the PID file).
func watchInstances(ctx context.Context, f *fleet, rec *recorder) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		for _, in := range f.inst {
			in.addPID(in.pid())
			for _, pid := range in.allPIDs() {
				if alive(pid) {
					for _, c := range childrenOf(pid) {
						in.addPID(c)
					}
				}
			}
			rss, hwm := 0, 0
			for _, pid := range in.allPIDs() {
				r, h := memoryKB(pid)
				rss, hwm = max(rss, r), max(hwm, h)
			}
			if rss > 0 {
				rec.addRSS(rssSample{At: time.Now(), Inst: in.name, KB: rss}, hwm)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// memoryKB reads VmRSS and VmHWM (KiB) of a running process; 0 when gone.
func memoryKB(pid int) (rss, hwm int) {
	if !alive(pid) {
		return 0, 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0
	}
	return parseStatusKB(string(b), "VmRSS:"), parseStatusKB(string(b), "VmHWM:")
}

// parseStatusKB returns the value in KiB of a /proc/<pid>/status field.
func parseStatusKB(status, field string) int {
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.Atoi(f[0])
				return n
			}
		}
	}
	return 0
}

// downMonitor probes a service every 20 ms and records when it first
// failed and when it answered again after that: its down time as a client
// sees it.
type downMonitor struct {
	mu                sync.Mutex
	from, to          time.Time
	firstErr, lastErr string // the probe's first and last errors while down
	stop              chan struct{}
	done              chan struct{}
}

// monitorDown starts probing.
func monitorDown(probe func(context.Context) error) *downMonitor {
	m := &downMonitor{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			at := time.Now()
			err := probe(context.Background())
			m.mu.Lock()
			switch {
			case err != nil && m.from.IsZero():
				m.from, m.firstErr, m.lastErr = at, err.Error(), err.Error()
			case err != nil && m.to.IsZero():
				m.lastErr = err.Error()
			case err == nil && !m.from.IsZero() && m.to.IsZero():
				m.to = at
			}
			m.mu.Unlock()
			select {
			case <-m.stop:
				return
			case <-t.C:
			}
		}
	}()
	return m
}

// errors returns the probe's first and last errors while down.
func (m *downMonitor) errors() (first, last string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.firstErr, m.lastErr
}

// wait waits (up to timeout) until the service was seen down and up again,
// stops probing and returns the down interval (zero times when it never
// was seen down).
func (m *downMonitor) wait(timeout time.Duration) (from, to time.Time) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		m.mu.Lock()
		ok := !m.from.IsZero() && !m.to.IsZero()
		m.mu.Unlock()
		if ok {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(m.stop)
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.from, m.to
}
