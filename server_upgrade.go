package plinth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The in-place upgrade (Config.Upgrade): on SIGHUP, Run starts the binary at
// its own path again with the listening sockets as inherited file
// descriptors 3.. (in the order of its own listeners), and one more: the
// write end of a pipe. The new process serves on the inherited sockets
// instead of opening Config.Addr and, once every accept loop runs, its
// OnStart hooks have succeeded and its readiness checks pass, it writes the
// PID file and one byte to the pipe. Only then does the old process drain,
// as on SIGTERM. The pipe answers three questions at once, without polling
// and without an address of the child's own: ready (a byte), failed (end of
// file: the child exited or crashed, whatever its exit status), or too slow
// (Config.UpgradeTimeout). A readiness URL would not do: the two processes
// share the sockets, so a probe could be answered by the old one.
const (
	// inheritedFDsEnv names how many listening sockets the process got from
	// its predecessor, at descriptors 3 and up.
	inheritedFDsEnv = "PLINTH_INHERITED_FDS"
	// readyFDEnv names the descriptor to write one byte to when ready.
	readyFDEnv = "PLINTH_READY_FD"
)

// upgradeOn says whether SIGHUP upgrades, from Config.Upgrade, whether
// standard input is a terminal and whether the process is PID 1 (a
// container's init: its exit ends the container, the new process with it).
func upgradeOn(cfg Config, stdinTerminal func() bool, pid int) bool {
	switch cfg.Upgrade {
	case "on":
		return true
	case "off":
		return false
	}
	return upgradeSupported && pid != 1 && !stdinTerminal()
}

// selfPath returns the path to start again on an upgrade, taken at start:
// the path the process was started by (os.Args[0], made absolute, or found
// in PATH), so that a deploy that switches a symbolic link (current ->
// releases/v2) is followed at the upgrade; os.Executable, which names the
// file behind the links, when that path cannot be found.
func selfPath() (string, error) {
	if arg := os.Args[0]; arg != "" {
		var p string
		var err error
		if strings.ContainsRune(arg, filepath.Separator) {
			p, err = filepath.Abs(arg)
		} else {
			p, err = exec.LookPath(arg)
			if err == nil {
				p, err = filepath.Abs(p)
			}
		}
		if err == nil {
			if fi, serr := os.Stat(p); serr == nil && fi.Mode().IsRegular() {
				return p, nil
			}
		}
	}
	return os.Executable()
}

// inheritance is what a process got from its starter: sockets and, for an
// upgraded process, the pipe to report readiness on.
type inheritance struct {
	lns    []net.Listener
	from   string   // "upgrade" or "systemd", for the startup line
	names  []string // LISTEN_FDNAMES, when systemd gave them
	readyW *os.File // nil unless started by an upgrade
}

// takeInheritance reads, and removes from the environment so that no child
// misreads them, the variables naming inherited sockets: Plinth's own
// handover first, then systemd's socket activation (LISTEN_PID,
// LISTEN_FDS, LISTEN_FDNAMES). It returns an empty inheritance when there
// is none.
func takeInheritance() (inheritance, error) {
	var inh inheritance
	if v, ok := os.LookupEnv(inheritedFDsEnv); ok {
		readyV := os.Getenv(readyFDEnv)
		os.Unsetenv(inheritedFDsEnv)
		os.Unsetenv(readyFDEnv)
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1024 {
			return inh, fmt.Errorf("plinth: %s=%q: not a count of sockets", inheritedFDsEnv, v)
		}
		if inh.lns, err = fileListeners(n, nil); err != nil {
			return inh, fmt.Errorf("plinth: sockets handed over by the previous process: %w", err)
		}
		inh.from = "upgrade"
		if fd, err := strconv.Atoi(readyV); err == nil && fd > 2 {
			inh.readyW = os.NewFile(uintptr(fd), "plinth-ready")
		}
		return inh, nil
	}
	pidV, okPID := os.LookupEnv("LISTEN_PID")
	fdsV, okFDs := os.LookupEnv("LISTEN_FDS")
	namesV := os.Getenv("LISTEN_FDNAMES")
	if !okPID && !okFDs {
		return inh, nil
	}
	os.Unsetenv("LISTEN_PID")
	os.Unsetenv("LISTEN_FDS")
	os.Unsetenv("LISTEN_FDNAMES")
	if pid, err := strconv.Atoi(pidV); err != nil || pid != os.Getpid() {
		return inh, nil // meant for another process (sd_listen_fds ignores them too)
	}
	n, err := strconv.Atoi(fdsV)
	if err != nil || n < 0 || n > 1024 {
		return inh, fmt.Errorf("plinth: LISTEN_FDS=%q (systemd socket activation): not a count of sockets", fdsV)
	}
	if n == 0 {
		return inh, nil
	}
	var names []string
	if namesV != "" {
		names = splitColon(namesV)
	}
	if inh.lns, err = fileListeners(n, names); err != nil {
		return inh, fmt.Errorf("plinth: sockets passed by systemd (LISTEN_FDS=%d): %w", n, err)
	}
	inh.from, inh.names = "systemd", names
	return inh, nil
}

func splitColon(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ':' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

// fileListeners makes listeners of descriptors 3 to 3+n-1, closing the
// descriptors themselves (net.FileListener keeps a close-on-exec copy).
func fileListeners(n int, names []string) ([]net.Listener, error) {
	lns := make([]net.Listener, 0, n)
	for i := range n {
		fd := 3 + i
		name := "fd " + strconv.Itoa(fd)
		if i < len(names) && names[i] != "" {
			name += " (" + names[i] + ")"
		}
		f := os.NewFile(uintptr(fd), name)
		ln, err := net.FileListener(f)
		f.Close()
		if err != nil {
			for _, l := range lns {
				l.Close()
			}
			return nil, fmt.Errorf("%s is not a listening stream socket: %w", name, err)
		}
		lns = append(lns, ln)
	}
	return lns, nil
}

// readyGate calls its function once every listener handed to serve has
// entered Accept: the OnStart hooks have then succeeded and the accept
// loops run. It also stops the accepting, for a handover.
type readyGate struct {
	left   atomic.Int64
	fn     func()
	paused atomic.Bool
	lns    []*readyListener
}

// gated wraps lns so that fn is called when each of them has been accepted
// on once; pause stops them accepting without closing them (see
// readyListener).
func gated(lns []net.Listener, fn func()) (wrapped []net.Listener, pause func()) {
	g := &readyGate{fn: fn}
	g.left.Store(int64(len(lns)))
	out := make([]net.Listener, len(lns))
	for i, ln := range lns {
		rl := &readyListener{Listener: ln, gate: g, closed: make(chan struct{})}
		g.lns = append(g.lns, rl)
		out[i] = rl
	}
	return out, g.pause
}

// pause makes this process stop accepting: the sockets stay open (the new
// process accepts on them), and an Accept blocked in the poller is woken
// by a deadline in the past, which only this process's descriptor sees.
func (g *readyGate) pause() {
	g.paused.Store(true)
	for _, l := range g.lns {
		if d, ok := l.Listener.(interface{ SetDeadline(time.Time) error }); ok {
			_ = d.SetDeadline(time.Now())
		}
	}
}

// readyListener reports its first Accept to its gate; after that it is the
// listener it wraps, for one atomic load per connection, until the gate
// pauses it: its Accept then waits for Close. A handover pauses the old
// process before it drains: net/http's Shutdown drops, without an answer,
// a request it reads after the shutdown began (net/http server.go, the
// shuttingDown check after readRequest), so a connection accepted in the
// last instant would fail; paused, the old process accepts none, the new
// one takes them all.
type readyListener struct {
	net.Listener
	gate      *readyGate
	once      sync.Once
	closeOnce sync.Once
	closed    chan struct{}
}

func (l *readyListener) Accept() (net.Conn, error) {
	l.once.Do(func() {
		if l.gate.left.Add(-1) == 0 {
			go l.gate.fn()
		}
	})
	for {
		if l.gate.paused.Load() {
			<-l.closed
			return nil, net.ErrClosed
		}
		c, err := l.Listener.Accept()
		if err != nil && l.gate.paused.Load() {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue // the pause's deadline
			}
		}
		return c, err
	}
}

func (l *readyListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// Unwrap returns the wrapped listener (for an engine that needs the
// *net.TCPListener itself).
func (l *readyListener) Unwrap() net.Listener { return l.Listener }

// handoverSettle is how long the old process, once it stopped accepting,
// gives the connections it accepted last to send their first request
// before it drains (see readyListener): a request sent at once arrives
// within a round trip.
const handoverSettle = 200 * time.Millisecond

// upgrader runs in-place upgrades for Run.
type upgrader struct {
	cfg  Config
	log  *slog.Logger
	exe  string         // the binary's path, taken at start
	lns  []net.Listener // the sockets to hand over, in order
	mu   sync.Mutex
	kill func() // kills the child of the attempt in progress
}

// whenReady is called once the process serves: it waits until the App's
// readiness checks pass (bounded by ctx), writes the PID file and tells the
// process that started it, if any.
func (a *App) whenReady(ctx context.Context, cfg Config, log *slog.Logger, readyW *os.File) {
	if readyW != nil {
		defer readyW.Close()
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		results, err := a.health.ready(ctx, 0)
		if err == nil && len(failing(results, CheckDown)) == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
	if cfg.PIDFile != "" {
		if err := writePIDFile(cfg.PIDFile, os.Getpid()); err != nil {
			log.Error("plinth: cannot write the PID file", "path", cfg.PIDFile, "error", err)
		}
	}
	if readyW != nil {
		if _, err := readyW.Write([]byte{1}); err != nil {
			log.Warn("plinth: cannot tell the previous process this one is ready", "error", err)
			return
		}
		log.Info("plinth: upgraded process ready; the previous one drains", "pid", os.Getpid())
	}
}

// attempt runs one upgrade: it returns nil once the new process is ready,
// or why it is not, after killing it. Listeners are neither closed nor
// reopened, whatever happens.
func (u *upgrader) attempt() (int, error) {
	start := time.Now()
	pid, err := startChild(u.exe, u.lns, u.cfg.UpgradeTimeout, func(kill func()) {
		u.mu.Lock()
		u.kill = kill
		u.mu.Unlock()
	})
	u.mu.Lock()
	u.kill = nil
	u.mu.Unlock()
	if err != nil {
		if u.cfg.PIDFile != "" {
			// The child may have written it just before failing.
			if werr := writePIDFile(u.cfg.PIDFile, os.Getpid()); werr != nil {
				u.log.Error("plinth: cannot write the PID file", "path", u.cfg.PIDFile, "error", werr)
			}
		}
		return pid, err
	}
	u.log.Info("plinth: upgraded: the new process is ready and serves; draining this one", "new_pid", pid, "took", time.Since(start).Round(time.Millisecond))
	return pid, nil
}

// abort kills the child of the attempt in progress, if any.
func (u *upgrader) abort() {
	u.mu.Lock()
	kill := u.kill
	u.mu.Unlock()
	if kill != nil {
		kill()
	}
}

// signals sets up SIGHUP for Run: with upgrades on, it returns the channel
// SIGHUP arrives on; in a terminal (upgrades off by default) SIGHUP joins
// the stop signals; with Upgrade "off" it is ignored.
func (u *upgrader) signals(cfg Config, on bool, stopSig chan os.Signal) chan os.Signal {
	switch {
	case on:
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		return hup
	case cfg.Upgrade == "off":
		signal.Ignore(syscall.SIGHUP)
	default:
		signal.Notify(stopSig, syscall.SIGHUP)
	}
	return nil
}
