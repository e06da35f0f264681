package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// procs starts the rehearsal's processes and reaps them. The harness is a
// child subreaper (PR_SET_CHILD_SUBREAPER): an upgraded instance is started
// by the old process and, once that one exits, becomes the harness's child;
// so does the PostgreSQL postmaster that pg_ctl leaves behind. The reaper
// reaps every child that is not waited for by its exec.Cmd ("managed").
type procs struct {
	dir string

	mu      sync.Mutex       // held across Start and registration, and across a reaper pass
	managed map[int]bool     // children whose exec.Cmd.Wait reaps them
	exited  map[int]exitInfo // children the reaper reaped
	stop    chan struct{}
	done    chan struct{}
}

// exitInfo is how a reaped child ended.
type exitInfo struct {
	At     time.Time
	Status string // "exit 0", "signal killed"
}

// newProcs makes the harness a child subreaper and starts the reaper.
func newProcs(dir string) (*procs, error) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("PR_SET_CHILD_SUBREAPER: %w", err)
	}
	p := &procs{dir: dir, managed: map[int]bool{}, exited: map[int]exitInfo{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go p.reapLoop()
	return p, nil
}

// logFile opens (appending) the log file name in the temporary directory.
func (p *procs) logFile(name string) (*os.File, error) {
	return os.OpenFile(filepath.Join(p.dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
}

// start starts cmd with its output appended to the log file logName (when
// cmd has no output of its own), in a process group of its own so that a
// Ctrl-C reaches the harness only, which then stops everything in order.
// A managed command must be waited for with cmd.Wait (then call forget);
// the reaper reaps the others.
func (p *procs) start(cmd *exec.Cmd, logName string, managed bool) error {
	if logName != "" && cmd.Stdout == nil {
		f, err := p.logFile(logName)
		if err != nil {
			return err
		}
		defer f.Close() // the child has its own copy
		cmd.Stdout, cmd.Stderr = f, f
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", strings.Join(cmd.Args, " "), err)
	}
	if managed {
		p.managed[cmd.Process.Pid] = true
	}
	return nil
}

// forget drops a managed child once its Wait returned.
func (p *procs) forget(pid int) {
	p.mu.Lock()
	delete(p.managed, pid)
	p.mu.Unlock()
}

// run runs cmd to its end, its output appended to logName; on failure the
// error carries the log's last lines.
func (p *procs) run(cmd *exec.Cmd, logName string) error {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := p.start(cmd, "", true); err != nil {
		return err
	}
	err := cmd.Wait()
	p.forget(cmd.Process.Pid)
	if logName != "" {
		if f, ferr := p.logFile(logName); ferr == nil {
			fmt.Fprintf(f, "$ %s\n%s", strings.Join(cmd.Args, " "), out.Bytes())
			f.Close()
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, tail(out.String(), 15))
	}
	return nil
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// reapLoop reaps, every 100 ms, the unmanaged children that exited.
func (p *procs) reapLoop() {
	defer close(p.done)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			p.reap()
			return
		case <-t.C:
			p.reap()
		}
	}
}

// reap reaps the zombie children nobody waits for.
func (p *procs) reap() {
	p.mu.Lock()
	defer p.mu.Unlock()
	self := os.Getpid()
	for _, pid := range listPIDs() {
		st, ok := readStat(pid)
		if !ok || st.ppid != self || st.state != 'Z' || p.managed[pid] {
			continue
		}
		var ws unix.WaitStatus
		got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		if err != nil || got != pid {
			continue
		}
		p.exited[pid] = exitInfo{At: time.Now(), Status: describeWait(ws)}
	}
}

// exitOf reports how a reaped child ended.
func (p *procs) exitOf(pid int) (exitInfo, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.exited[pid]
	return e, ok
}

// describeWait words a wait status.
func describeWait(ws unix.WaitStatus) string {
	switch {
	case ws.Exited():
		return "exit " + strconv.Itoa(ws.ExitStatus())
	case ws.Signaled():
		return "signal " + ws.Signal().String()
	}
	return fmt.Sprintf("status %#x", uint32(ws))
}

// killChildren stops whatever is still a child of the harness (instances
// upgraded under it, a postmaster, stragglers): SIGKILL, then reaps, for up
// to timeout. Processes in the children's own groups get the signal too.
func (p *procs) killChildren(timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	self := os.Getpid()
	for {
		var left []int
		for _, pid := range listPIDs() {
			if st, ok := readStat(pid); ok && st.ppid == self && st.state != 'Z' {
				left = append(left, pid)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return
		}
		for _, pid := range left {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// close stops the reaper after a last pass.
func (p *procs) close() {
	close(p.stop)
	<-p.done
}

// procStat is what /proc/<pid>/stat says of a process.
type procStat struct {
	ppid  int
	state byte
	comm  string
}

// readStat reads /proc/<pid>/stat; false when the process is gone.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	return parseStat(string(b))
}

// parseStat parses a /proc/<pid>/stat line: "pid (comm) S ppid ...", comm
// possibly holding spaces and parentheses.
func parseStat(s string) (procStat, bool) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open || end+2 >= len(s) {
		return procStat{}, false
	}
	f := strings.Fields(s[end+2:])
	if len(f) < 2 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return procStat{}, false
	}
	return procStat{ppid: ppid, state: f[0][0], comm: s[open+1 : end]}, true
}

// alive reports whether pid runs (exists and is not a zombie).
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	st, ok := readStat(pid)
	return ok && st.state != 'Z' && st.state != 'X'
}

// listPIDs lists the processes in /proc.
func listPIDs() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	pids := make([]int, 0, len(entries))
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// childrenOf lists the running children of pid.
func childrenOf(pid int) []int {
	var out []int
	for _, c := range listPIDs() {
		if st, ok := readStat(c); ok && st.ppid == pid && st.state != 'Z' {
			out = append(out, c)
		}
	}
	return out
}

// waitGone waits until pid no longer runs, up to timeout.
func waitGone(pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for alive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// freePort returns a TCP port free on 127.0.0.1 (listen on :0, close).
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// freePorts returns n distinct free ports.
func freePorts(n int) ([]int, error) {
	seen := map[int]bool{}
	var ports []int
	for len(ports) < n {
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		if !seen[p] {
			seen[p] = true
			ports = append(ports, p)
		}
	}
	return ports, nil
}

// waitFor calls check every interval until it returns nil or timeout
// passes; the error is check's last.
func waitFor(timeout, interval time.Duration, check func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(interval)
	}
}

// errTimeout is returned by waits that ran out of time without an error of
// their own.
var errTimeout = errors.New("timed out")
