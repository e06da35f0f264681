//go:build unix

package plinth

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"
)

const upgradeSupported = true

// stdinTerminal says whether standard input is a terminal.
func stdinTerminal() bool { return term.IsTerminal(int(os.Stdin.Fd())) }

// dupListener returns a copy of ln's descriptor as a file. It does not use
// (*net.TCPListener).File: a file made that way is switched to blocking
// mode when exec reads its descriptor, and the mode belongs to the socket,
// which the old process is still accepting on. A descriptor given to
// os.NewFile in non-blocking mode stays so.
func dupListener(ln net.Listener) (*os.File, error) {
	sc, ok := ln.(interface {
		SyscallConn() (syscall.RawConn, error)
	})
	if !ok {
		return nil, fmt.Errorf("listener %s (%T) has no file descriptor to hand over", ln.Addr(), ln)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var nfd int
	var derr error
	if err := rc.Control(func(fd uintptr) {
		nfd, derr = dupCloexec(int(fd))
	}); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, fmt.Errorf("dup %s: %w", ln.Addr(), derr)
	}
	return os.NewFile(uintptr(nfd), "listener "+ln.Addr().String()), nil
}

func dupCloexec(fd int) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 3)
	if errno != 0 {
		return -1, errno
	}
	return int(r), nil
}

// startChild starts exe with the listeners at descriptors 3.. and waits,
// within timeout, for its readiness byte. It gives the caller a kill
// function while it waits (setKill) so that a stop signal can end the
// attempt. On failure the child is killed and reaped.
func startChild(exe string, lns []net.Listener, timeout time.Duration, setKill func(func())) (int, error) {
	files := make([]*os.File, 0, len(lns)+1)
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, ln := range lns {
		f, err := dupListener(ln)
		if err != nil {
			return 0, fmt.Errorf("plinth: upgrade: %w", err)
		}
		files = append(files, f)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return 0, fmt.Errorf("plinth: upgrade: readiness pipe: %w", err)
	}
	defer r.Close()
	files = append(files, w)

	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Args[0] = os.Args[0]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = files
	env := make([]string, 0, len(os.Environ())+2)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, inheritedFDsEnv+"=") && !strings.HasPrefix(kv, readyFDEnv+"=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env,
		inheritedFDsEnv+"="+strconv.Itoa(len(lns)),
		readyFDEnv+"="+strconv.Itoa(3+len(lns)))
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("plinth: upgrade: cannot start %s: %w", exe, err)
	}
	pid := cmd.Process.Pid
	w.Close() // the child holds the write end now: end of file means it is gone
	files = files[:len(files)-1]

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	readyc := make(chan error, 1)
	go func() {
		var b [1]byte
		n, err := r.Read(b[:])
		if n == 1 {
			err = nil
		} else if err == nil {
			err = errors.New("no readiness byte")
		}
		readyc <- err
	}()
	killed := make(chan struct{})
	setKill(func() {
		select {
		case <-killed:
		default:
			close(killed)
		}
	})
	timer := time.NewTimer(timeout)
	defer timer.Stop()

	fail := func(why string) (int, error) {
		cmd.Process.Kill()
		werr := <-exited
		return pid, fmt.Errorf("plinth: upgrade: new process %d %s (%v); this process keeps serving", pid, why, werr)
	}
	select {
	case err := <-readyc:
		if err == nil {
			return pid, nil // the child runs on; it is reparented when this process exits
		}
		// The child closed the pipe without a byte: it exited or crashed.
		select {
		case werr := <-exited:
			return pid, fmt.Errorf("plinth: upgrade: new process %d exited before it was ready (%v); this process keeps serving", pid, werr)
		case <-time.After(time.Second):
			return fail("closed its readiness pipe without being ready")
		}
	case werr := <-exited:
		return pid, fmt.Errorf("plinth: upgrade: new process %d exited before it was ready (%v); this process keeps serving", pid, werr)
	case <-timer.C:
		return fail(fmt.Sprintf("was not ready within %s (UpgradeTimeout), killed", timeout))
	case <-killed:
		return fail("killed: this process was asked to stop")
	}
}
