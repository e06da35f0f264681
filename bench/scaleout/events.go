package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// window is one event of the rehearsal and the time after it: every
// request answered (or failed), stream closed or job enqueued between
// Start and End counts for it.
type window struct {
	Index     int
	Kind      string // baseline, upgrade, sigterm, sigkill, redis, postgres, lbreload
	Name      string
	Start     time.Time
	ActionEnd time.Time // the event's action completed; the settle period follows
	End       time.Time
	Instance  string    // the instance acted on (sigterm, sigkill)
	KillAt    time.Time // sigkill: when SIGKILL was sent
	DownFrom  time.Time // redis, postgres: first failed probe
	DownTo    time.Time // and first answer after it
	Notes     []string
	Err       string // the action itself failed

	mu sync.Mutex // Notes, added to by goroutines waiting for old processes
}

// note adds a line to the window's notes and prints it.
func (w *window) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	w.mu.Lock()
	w.Notes = append(w.Notes, s)
	w.mu.Unlock()
	logf("  %s", s)
}

// event is one kind of event: its name in the table and its action.
type event struct {
	kind, name string
	run        func(r *rehearsal, w *window) error
}

// allEvents are the events of the full rehearsal, in order.
var allEvents = []event{
	{"baseline", "baseline", nil},
	{"upgrade", "rolling upgrade v1 -> v2 (SIGHUP)", (*rehearsal).rollingUpgrade},
	{"sigterm", "SIGTERM web2, restart", (*rehearsal).sigterm},
	{"sigkill", "SIGKILL web3, restart after 1 s", (*rehearsal).sigkill},
	{"redis", "Redis restart", (*rehearsal).redisRestart},
	{"postgres", "PostgreSQL restart (-m fast)", (*rehearsal).postgresRestart},
	{"lbreload", "load balancer reload", (*rehearsal).lbReload},
}

// smokeEvents are the smoke run's events.
var smokeEvents = []event{allEvents[0], allEvents[2], allEvents[4]}

// kindList names the events' kinds, for the flag's usage.
func kindList() string {
	var kinds []string
	for _, e := range allEvents {
		kinds = append(kinds, e.kind)
	}
	return strings.Join(kinds, ",")
}

// selectEvents returns the events of a comma-separated list of kinds, in
// the list's order.
func selectEvents(list string) ([]event, error) {
	var out []event
	for _, k := range strings.Split(list, ",") {
		k = strings.TrimSpace(k)
		i := slices.IndexFunc(allEvents, func(e event) bool { return e.kind == k })
		if i < 0 {
			return nil, fmt.Errorf("-events: no event %q (the events: %s)", k, kindList())
		}
		out = append(out, allEvents[i])
	}
	return out, nil
}

// runEvents runs the events one after another, each followed by the settle
// period (the baseline lasts its own period), and returns their windows.
func (r *rehearsal) runEvents(ctx context.Context, evs []event) []*window {
	var ws []*window
	for i, ev := range evs {
		if ctx.Err() != nil {
			break
		}
		w := &window{Index: i, Kind: ev.kind, Name: ev.name, Start: time.Now()}
		if len(ws) > 0 {
			ws[len(ws)-1].End = w.Start
		}
		ws = append(ws, w)
		logf("event %d: %s", i, ev.name)
		wait := r.opts.settle
		if ev.run == nil {
			wait = r.opts.baseline
		} else if err := ev.run(r, w); err != nil {
			w.Err = err.Error()
			logf("  event %d failed: %v", i, err)
		}
		w.ActionEnd = time.Now()
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
	if len(ws) > 0 {
		ws[len(ws)-1].End = time.Now()
	}
	return ws
}

// rollingUpgrade renames web-v2 over the path the instances run from, then
// upgrades each in turn: SIGHUP, the PID file names the new process, whose
// /readyz (asked directly) is 200 and /api/version says v2; then the next.
func (r *rehearsal) rollingUpgrade(w *window) error {
	if err := copyFile(filepath.Join(r.dir, "web-v2"), r.fleet.bin); err != nil {
		return err
	}
	w.note("web-v2 renamed over %s", r.fleet.bin)
	for i, in := range r.fleet.inst {
		t0 := time.Now()
		oldPID, newPID, err := r.fleet.upgrade(i, "v2", 45*time.Second)
		if err != nil {
			return fmt.Errorf("%s: %w", in.name, err)
		}
		w.note("%s: pid %d -> %d (v2) ready in %.2f s", in.name, oldPID, newPID, time.Since(t0).Seconds())
		go r.noteExit(w, in.name, oldPID)
	}
	return nil
}

// noteExit waits (up to 30 s) for an old process to exit and notes how.
func (r *rehearsal) noteExit(w *window, name string, pid int) {
	t0 := time.Now()
	if !waitGone(pid, 30*time.Second) {
		w.note("%s: old pid %d still running 30 s after its upgrade", name, pid)
		return
	}
	time.Sleep(300 * time.Millisecond) // the reaper's turn
	e, _ := r.procs.exitOf(pid)
	w.note("%s: old pid %d exited (%s) %.1f s after the new one was ready", name, pid, orUnknown(e.Status), time.Since(t0).Seconds())
}

func orUnknown(s string) string {
	if s == "" {
		return "status unknown"
	}
	return s
}

// sigterm stops web2 with SIGTERM (it drains: /readyz 503 for
// PLINTH_DRAIN_DELAY, then the listener closes and requests in flight
// finish), waits for it to exit and starts it again.
func (r *rehearsal) sigterm(w *window) error {
	i := 1
	w.Instance = r.fleet.inst[i].name
	pid, err := r.fleet.signal(i, syscall.SIGTERM)
	if err != nil {
		return err
	}
	t0 := time.Now()
	if !waitGone(pid, 30*time.Second) {
		return fmt.Errorf("%s (pid %d) still running 30 s after SIGTERM", w.Instance, pid)
	}
	time.Sleep(200 * time.Millisecond)
	e, _ := r.procs.exitOf(pid)
	w.note("%s: pid %d exited (%s) %.2f s after SIGTERM", w.Instance, pid, orUnknown(e.Status), time.Since(t0).Seconds())
	return r.restart(w, i)
}

// restart starts instance i again, as its supervisor would, and notes how
// long it took to be ready.
func (r *rehearsal) restart(w *window, i int) error {
	t1 := time.Now()
	newPID, err := r.fleet.start(i, 60*time.Second)
	if err != nil {
		return err
	}
	w.note("%s: restarted as pid %d, ready in %.2f s", w.Instance, newPID, time.Since(t1).Seconds())
	return nil
}

// sigkill kills web3 with SIGKILL and starts it again after 1 s.
func (r *rehearsal) sigkill(w *window) error {
	i := 2
	w.Instance = r.fleet.inst[i].name
	w.KillAt = time.Now()
	pid, err := r.fleet.signal(i, syscall.SIGKILL)
	if err != nil {
		return err
	}
	w.note("%s: pid %d killed", w.Instance, pid)
	time.Sleep(time.Second)
	return r.restart(w, i)
}

// redisRestart stops Redis (`redis-cli shutdown`, which writes its
// append-only file), leaves it stopped for -redis-down (1 s: a restart by
// a supervisor or an upgrade of the package), and starts it again; the
// down time is what a client probing every 20 ms saw.
func (r *rehearsal) redisRestart(w *window) error {
	m := monitorDown(r.redis.ping)
	t0 := time.Now()
	if err := r.redis.shutdown(); err != nil {
		m.wait(0)
		return err
	}
	time.Sleep(r.opts.redisDown)
	if err := r.redis.start(); err != nil {
		m.wait(0)
		return err
	}
	t1 := time.Now()
	w.DownFrom, w.DownTo = m.wait(2 * time.Second)
	if w.DownFrom.IsZero() || w.DownTo.IsZero() {
		w.DownFrom, w.DownTo = t0, t1
	}
	w.note("Redis down %.3f s (shutdown to PONG %.3f s)", w.DownTo.Sub(w.DownFrom).Seconds(), t1.Sub(t0).Seconds())
	return nil
}

// postgresRestart is `pg_ctl restart -m fast`; the down time is what a
// client connecting every 20 ms saw.
func (r *rehearsal) postgresRestart(w *window) error {
	m := monitorDown(r.pg.probe)
	t0 := time.Now()
	err := r.pg.restart()
	t1 := time.Now()
	w.DownFrom, w.DownTo = m.wait(5 * time.Second)
	if w.DownFrom.IsZero() || w.DownTo.IsZero() {
		w.DownFrom, w.DownTo = t0, t1
	}
	if err != nil {
		return err
	}
	first, last := m.errors()
	w.note("PostgreSQL down %.3f s (pg_ctl restart took %.3f s); the probe's first error: %s; its last: %s",
		w.DownTo.Sub(w.DownFrom).Seconds(), t1.Sub(t0).Seconds(), first, last)
	return nil
}

// lbReload reloads the load balancer's configuration in place.
func (r *rehearsal) lbReload(w *window) error {
	before, after, err := r.lb.reload()
	if err != nil {
		return err
	}
	w.note("%s workers %v -> %v", r.lb.kind, before, after)
	return nil
}
