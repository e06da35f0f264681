//go:build linux

package plinth_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/plinth-go/plinth/racetest"
)

// The in-place upgrade is tested from outside, as an operator sees it: a
// built binary (testdata/upgradeapp) under load, signals, its PID file, its
// log and the exit codes. The test process makes itself a child subreaper
// so that the processes started by an upgrade, orphaned when their parent
// exits, become its children and their exit codes can be read.
//
// PLINTH_TEST_UPGRADE_SECONDS=N makes every load phase of
// TestUpgradeUnderLoad last N seconds instead of about half a second
// (docs/deploy.md takes its figure from such a run).

var (
	subreaperOnce sync.Once
	buildMu       sync.Mutex
	builtApps     = map[string]string{}
)

func becomeSubreaper(t *testing.T) {
	subreaperOnce.Do(func() {
		const prSetChildSubreaper = 36
		if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
			t.Fatalf("prctl(PR_SET_CHILD_SUBREAPER): %v", errno)
		}
	})
}

// buildUpgradeApp builds testdata/upgradeapp answering version, once per
// test binary, and returns a copy of it at dst.
func buildUpgradeApp(t *testing.T, version, dst string) {
	t.Helper()
	buildMu.Lock()
	src, ok := builtApps[version]
	if !ok {
		dir, err := os.MkdirTemp("", "plinth-upgradeapp-")
		if err != nil {
			buildMu.Unlock()
			t.Fatal(err)
		}
		src = filepath.Join(dir, "app-"+version)
		args := []string{"build", "-ldflags", "-X main.version=" + version, "-o", src}
		if racetest.Enabled {
			args = append(args, "-race") // the upgrade's own code runs in the app
		}
		out, err := exec.Command("go", append(args, "./testdata/upgradeapp")...).CombinedOutput()
		if err != nil {
			buildMu.Unlock()
			t.Fatalf("go build testdata/upgradeapp: %v\n%s", err, out)
		}
		builtApps[version] = src
	}
	buildMu.Unlock()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// A deploy replaces the file (rename), it does not write into it: the
	// running binary's file is busy.
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		t.Fatal(err)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	buildMu.Lock()
	for _, p := range builtApps {
		os.RemoveAll(filepath.Dir(p))
	}
	buildMu.Unlock()
	os.Exit(code)
}

func putScript(t *testing.T, dst, body string) {
	t.Helper()
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		t.Fatal(err)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// appRun is one started app: its first process, its log and PID file.
type appRun struct {
	t       *testing.T
	cmd     *exec.Cmd
	logPath string
	pidPath string
	addr    string
}

func startApp(t *testing.T, cmd *exec.Cmd, dir, addr string) *appRun {
	t.Helper()
	becomeSubreaper(t)
	r := &appRun{t: t, cmd: cmd, logPath: filepath.Join(dir, "log"), pidPath: filepath.Join(dir, "pid"), addr: addr}
	logf, err := os.OpenFile(r.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Whatever is left of the app, the test's subreaper children included.
		if pid := r.pid(); pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(r.logPath)
			t.Logf("app log:\n%s", b)
		}
	})
	return r
}

func (r *appRun) pid() int {
	b, err := os.ReadFile(r.pidPath)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// waitPID waits until the PID file names a process other than not (0: any).
func (r *appRun) waitPID(not int, within time.Duration) int {
	r.t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if p := r.pid(); p > 0 && p != not {
			return p
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.t.Fatalf("the PID file %s did not name a new process (other than %d) within %s", r.pidPath, not, within)
	return 0
}

// waitLog waits until a log line holds every one of parts, and returns it.
func (r *appRun) waitLog(within time.Duration, parts ...string) string {
	r.t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if line := r.logLine(parts...); line != "" {
			return line
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.t.Fatalf("no log line with %q within %s", parts, within)
	return ""
}

func (r *appRun) logLine(parts ...string) string {
	f, err := os.Open(r.logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
lines:
	for sc.Scan() {
		for _, p := range parts {
			if !strings.Contains(sc.Text(), p) {
				continue lines
			}
		}
		return sc.Text()
	}
	return ""
}

// reap waits for pid, a child of the test (the first process) or an orphan
// reparented to it, and returns its exit status.
func (r *appRun) reap(pid int, within time.Duration) int {
	r.t.Helper()
	if pid == r.cmd.Process.Pid {
		done := make(chan error, 1)
		go func() { done <- r.cmd.Wait() }()
		select {
		case err := <-done:
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return ee.ExitCode()
			}
			if err != nil {
				r.t.Fatalf("wait %d: %v", pid, err)
			}
			return 0
		case <-time.After(within):
			r.t.Fatalf("process %d did not exit within %s", pid, within)
		}
	}
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		switch {
		case err == syscall.ECHILD:
			// Not reparented yet: its parent still runs.
		case err != nil:
			r.t.Fatalf("wait4 %d: %v", pid, err)
		case got == pid:
			if ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return ws.ExitStatus()
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.t.Fatalf("process %d did not exit within %s", pid, within)
	return -1
}

func (r *appRun) get(path string) (string, error) {
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := c.Get("http://" + r.addr + path)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		return string(b), fmt.Errorf("status %d", res.StatusCode)
	}
	return string(b), err
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// loadStats counts the load's requests and classifies its failures.
type loadStats struct {
	ok       atomic.Int64
	mu       sync.Mutex
	failures map[string]int // class -> count
	examples map[string]string
	when     []string       // the first failures, with their time, to set against the app's log
	served   map[string]int // "version pid" -> responses
}

func classify(err error) string {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed (EOF)"
	case errors.Is(err, syscall.EPIPE):
		return "broken pipe"
	case errors.Is(err, context.DeadlineExceeded), os.IsTimeout(err):
		return "timeout"
	}
	return "other"
}

// runLoad sends requests from workers goroutines until ctx ends: half on
// kept-alive connections (one shared Transport, as a proxy would), half on
// a new connection each; one of each asks for /slow, so that some are in
// flight at every drain.
func runLoad(ctx context.Context, addr string, workers int) (*loadStats, func()) {
	st := &loadStats{failures: map[string]int{}, examples: map[string]string{}, served: map[string]int{}}
	keep := &http.Transport{MaxIdleConnsPerHost: workers, MaxConnsPerHost: 0}
	fresh := &http.Transport{DisableKeepAlives: true}
	var wg sync.WaitGroup
	for i := range workers {
		tr := keep
		if i%2 == 1 {
			tr = fresh
		}
		path := "/version"
		if i < 2 {
			path = "/slow"
		}
		client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
		wg.Go(func() {
			local := map[string]int{}
			defer func() {
				st.mu.Lock()
				for k, v := range local {
					st.served[k] += v
				}
				st.mu.Unlock()
			}()
			for ctx.Err() == nil {
				res, err := client.Get("http://" + addr + path)
				if err == nil {
					var b []byte
					b, err = io.ReadAll(res.Body)
					res.Body.Close()
					if err == nil && res.StatusCode != 200 {
						err = fmt.Errorf("status %d: %s", res.StatusCode, b)
					}
					if err == nil {
						st.ok.Add(1)
						local[string(b)]++
						continue
					}
				}
				if ctx.Err() != nil {
					return
				}
				class := classify(err)
				if strings.HasPrefix(err.Error(), "status ") {
					class = "HTTP " + err.Error()[:10]
				}
				conn := "new connection"
				if tr == keep {
					conn = "kept-alive transport"
				}
				class += " (" + conn + ", " + path + ")"
				st.mu.Lock()
				st.failures[class]++
				if _, ok := st.examples[class]; !ok {
					st.examples[class] = err.Error()
				}
				if len(st.when) < 20 {
					st.when = append(st.when, time.Now().UTC().Format(time.RFC3339Nano)+" "+class)
				}
				st.mu.Unlock()
			}
		})
	}
	return st, func() {
		wg.Wait()
		keep.CloseIdleConnections()
	}
}

func (st *loadStats) report(t *testing.T) (ok, failed int64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, n := range st.failures {
		failed += int64(n)
	}
	ok = st.ok.Load()
	total := ok + failed
	t.Logf("load: %d requests, %d failed (rate %.6f)", total, failed, float64(failed)/float64(max(total, 1)))
	for class, n := range st.failures {
		t.Logf("  failure %q: %d, e.g. %s", class, n, st.examples[class])
	}
	for _, w := range st.when {
		t.Logf("  failed at %s", w)
	}
	keys := make([]string, 0, len(st.served))
	for k := range st.served {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("  served by %q: %d", k, st.served[k])
	}
	return ok, failed
}

func phase() time.Duration {
	if s := os.Getenv("PLINTH_TEST_UPGRADE_SECONDS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return time.Duration(n) * time.Second
		}
	}
	return 600 * time.Millisecond
}

func appCmd(bin string, env ...string) *exec.Cmd {
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// TestUpgradeUnderLoad: under steady load on new and kept-alive
// connections, two upgrades (the second from a replaced binary), a failed
// one from a binary that exits at once, one from a binary that never gets
// ready, a good one after them, then SIGTERM: no request fails, each old
// process exits 0, the PID file follows, the last process drains and exits 0.
func TestUpgradeUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "app")
	buildUpgradeApp(t, "v1", bin)
	buildUpgradeApp(t, "v2", filepath.Join(dir, "unused")) // build before the clock matters
	addr := freeAddr(t)
	r := startApp(t, appCmd(bin, "PLINTH_ADDR="+addr, "PLINTH_PID_FILE="+filepath.Join(dir, "pid"), "PLINTH_UPGRADE_TIMEOUT=2s"), dir, addr)
	pid0 := r.waitPID(0, 20*time.Second)
	if pid0 != r.cmd.Process.Pid {
		t.Fatalf("PID file names %d, the process is %d", pid0, r.cmd.Process.Pid)
	}

	ctx, cancel := context.WithCancel(context.Background())
	st, wait := runLoad(ctx, addr, 8)
	defer func() { cancel(); wait() }()
	p := phase()
	time.Sleep(p)

	// 1: the same binary again.
	syscall.Kill(pid0, syscall.SIGHUP)
	pid1 := r.waitPID(pid0, 10*time.Second)
	if code := r.reap(pid0, 40*time.Second); code != 0 {
		t.Errorf("first process exited %d after the upgrade, want 0", code)
	}
	time.Sleep(p)

	// 2: a deploy replaced the binary.
	buildUpgradeApp(t, "v2", bin)
	syscall.Kill(pid1, syscall.SIGHUP)
	pid2 := r.waitPID(pid1, 10*time.Second)
	if code := r.reap(pid1, 40*time.Second); code != 0 {
		t.Errorf("second process exited %d after the upgrade, want 0", code)
	}
	if body, err := r.get("/version"); err != nil || body != "v2 "+strconv.Itoa(pid2) {
		t.Errorf("after the second upgrade /version = %q, %v; want v2 from %d", body, err, pid2)
	}
	time.Sleep(p)

	// 3: a binary that exits at once.
	putScript(t, bin, "exit 3")
	syscall.Kill(pid2, syscall.SIGHUP)
	line := r.waitLog(10*time.Second, `"level":"ERROR"`, "upgrade failed", "exited before it was ready", "exit status 3")
	t.Logf("failed upgrade logged: %s", line)
	time.Sleep(p)
	if got := r.pid(); got != pid2 || !alive(pid2) {
		t.Fatalf("after a failed upgrade the PID file names %d (alive: %v), want %d", got, alive(pid2), pid2)
	}
	if body, err := r.get("/version"); err != nil || body != "v2 "+strconv.Itoa(pid2) {
		t.Fatalf("after a failed upgrade /version = %q, %v; want the old process %d", body, err, pid2)
	}

	// 4: a binary that never gets ready (UpgradeTimeout 2s), and holds the
	// sockets meanwhile.
	putScript(t, bin, "exec sleep 60")
	syscall.Kill(pid2, syscall.SIGHUP)
	r.waitLog(10*time.Second, `"level":"ERROR"`, "upgrade failed", "was not ready within 2s")
	time.Sleep(p)
	if got := r.pid(); got != pid2 || !alive(pid2) {
		t.Fatalf("after a timed-out upgrade the PID file names %d (alive: %v), want %d", got, alive(pid2), pid2)
	}

	// 5: a good binary again: a later SIGHUP succeeds.
	buildUpgradeApp(t, "v2", bin)
	syscall.Kill(pid2, syscall.SIGHUP)
	pid3 := r.waitPID(pid2, 10*time.Second)
	if code := r.reap(pid2, 40*time.Second); code != 0 {
		t.Errorf("third process exited %d after the upgrade, want 0", code)
	}
	time.Sleep(p)

	cancel()
	wait()
	syscall.Kill(pid3, syscall.SIGTERM)
	if code := r.reap(pid3, 40*time.Second); code != 0 {
		t.Errorf("last process exited %d after SIGTERM, want 0", code)
	}
	if _, err := os.Stat(r.pidPath); !os.IsNotExist(err) {
		t.Errorf("PID file left after the last process stopped: %v", err)
	}
	ok, failed := st.report(t)
	if failed != 0 {
		t.Errorf("%d of %d requests failed across the upgrades; want 0", failed, ok+failed)
	}
	if ok < 1000 {
		t.Errorf("only %d requests succeeded: the load did not run", ok)
	}
	st.mu.Lock()
	for _, pid := range []int{pid0, pid1, pid2, pid3} {
		n := 0
		for k, v := range st.served {
			if strings.HasSuffix(k, " "+strconv.Itoa(pid)) {
				n += v
			}
		}
		if n == 0 {
			t.Errorf("process %d served no request of the load", pid)
		}
	}
	st.mu.Unlock()
}

// openPTY returns a pseudo-terminal's secondary side, to be a child's
// standard input, and its primary side.
func openPTY(t *testing.T) (pts, ptmx *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("TIOCSPTLCK: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("TIOCGPTN: %v", e)
	}
	pts, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pts.Close(); ptmx.Close() })
	return pts, ptmx
}

// TestUpgradeSIGHUPInTerminalStops: with standard input a terminal, SIGHUP
// means the terminal closed: the process drains and exits 0, no new one.
func TestUpgradeSIGHUPInTerminalStops(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "app")
	buildUpgradeApp(t, "v1", bin)
	addr := freeAddr(t)
	pts, _ := openPTY(t)
	cmd := appCmd(bin, "PLINTH_ADDR="+addr, "PLINTH_PID_FILE="+filepath.Join(dir, "pid"))
	cmd.Stdin = pts
	r := startApp(t, cmd, dir, addr)
	pid := r.waitPID(0, 20*time.Second)
	syscall.Kill(pid, syscall.SIGHUP)
	if code := r.reap(pid, 40*time.Second); code != 0 {
		t.Fatalf("exit %d after SIGHUP in a terminal, want 0 (drained)", code)
	}
	r.waitLog(time.Second, "signal received, draining", "hangup")
	if line := r.logLine("upgrading in place"); line != "" {
		t.Fatalf("upgraded in a terminal: %s", line)
	}
	if _, err := r.get("/version"); err == nil {
		t.Fatal("something still serves after SIGHUP in a terminal")
	}
}

// TestUpgradeOffIgnoresSIGHUP: PLINTH_UPGRADE=off, even without a terminal:
// SIGHUP changes nothing; SIGTERM still drains.
func TestUpgradeOffIgnoresSIGHUP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "app")
	buildUpgradeApp(t, "v1", bin)
	addr := freeAddr(t)
	r := startApp(t, appCmd(bin, "PLINTH_ADDR="+addr, "PLINTH_PID_FILE="+filepath.Join(dir, "pid"), "PLINTH_UPGRADE=off"), dir, addr)
	pid := r.waitPID(0, 20*time.Second)
	syscall.Kill(pid, syscall.SIGHUP)
	time.Sleep(300 * time.Millisecond)
	if body, err := r.get("/version"); err != nil || body != "v1 "+strconv.Itoa(pid) {
		t.Fatalf("after SIGHUP with upgrades off: %q, %v; want v1 from %d", body, err, pid)
	}
	syscall.Kill(pid, syscall.SIGTERM)
	if code := r.reap(pid, 40*time.Second); code != 0 {
		t.Fatalf("exit %d after SIGTERM, want 0", code)
	}
}

// TestSocketActivation: sockets passed the systemd way are served instead
// of PLINTH_ADDR (which points elsewhere), the startup line says so, an
// upgrade hands them on, and SIGTERM drains. Once with the fd passed by a
// tiny exec wrapper, once under systemd-socket-activate when installed.
func TestSocketActivation(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a binary")
	}
	run := func(t *testing.T, r *appRun) {
		// systemd-socket-activate starts the app at the first connection:
		// this request waits in the socket's queue meanwhile.
		// Retried while the activator is not listening yet.
		var body string
		var err error
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if body, err = r.get("/version"); err == nil {
				break
			}
		}
		pid := r.waitPID(0, 20*time.Second)
		if err != nil || body != "v1 "+strconv.Itoa(pid) {
			t.Fatalf("GET on the passed socket: %q, %v", body, err)
		}
		r.waitLog(5*time.Second, "passed by systemd", "LISTEN_FDS")
		syscall.Kill(pid, syscall.SIGHUP)
		pid2 := r.waitPID(pid, 10*time.Second)
		if code := r.reap(pid, 40*time.Second); code != 0 {
			t.Fatalf("activated process exited %d after the upgrade, want 0", code)
		}
		if body, err := r.get("/version"); err != nil || body != "v1 "+strconv.Itoa(pid2) {
			t.Fatalf("GET after the upgrade: %q, %v", body, err)
		}
		syscall.Kill(pid2, syscall.SIGTERM)
		if code := r.reap(pid2, 40*time.Second); code != 0 {
			t.Fatalf("exit %d after SIGTERM, want 0", code)
		}
	}
	t.Run("wrapper", func(t *testing.T) {
		dir := t.TempDir()
		bin := filepath.Join(dir, "app")
		buildUpgradeApp(t, "v1", bin)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		f, err := ln.(*net.TCPListener).File()
		ln.Close()
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		// LISTEN_PID must be the app's PID: the shell's, which exec keeps.
		cmd := exec.Command("/bin/sh", "-c", `LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=http; export LISTEN_PID LISTEN_FDS LISTEN_FDNAMES; exec "$0"`, bin)
		cmd.Env = append(os.Environ(), "PLINTH_ADDR=127.0.0.1:1", "PLINTH_PID_FILE="+filepath.Join(dir, "pid"))
		cmd.ExtraFiles = []*os.File{f}
		run(t, startApp(t, cmd, dir, ln.Addr().String()))
	})
	t.Run("systemd-socket-activate", func(t *testing.T) {
		tool, err := exec.LookPath("systemd-socket-activate")
		if err != nil {
			t.Skip("systemd-socket-activate is not installed (package systemd)")
		}
		dir := t.TempDir()
		bin := filepath.Join(dir, "app")
		buildUpgradeApp(t, "v1", bin)
		addr := freeAddr(t)
		cmd := exec.Command(tool, "-l", addr, "-E", "PLINTH_ADDR=127.0.0.1:1", "-E", "PLINTH_PID_FILE="+filepath.Join(dir, "pid"), bin)
		run(t, startApp(t, cmd, dir, addr))
	})
}

// TestUpgradeFollowsSymlink: a deploy that switches a symbolic link
// (current -> v2/app) is followed: the upgrade starts what the link names
// now, not the file the process was started from.
func TestUpgradeFollowsSymlink(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a binary")
	}
	dir := t.TempDir()
	for _, v := range []string{"v1", "v2"} {
		os.Mkdir(filepath.Join(dir, v), 0o755)
		buildUpgradeApp(t, v, filepath.Join(dir, v, "app"))
	}
	link := filepath.Join(dir, "current")
	if err := os.Symlink(filepath.Join(dir, "v1", "app"), link); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	r := startApp(t, appCmd(link, "PLINTH_ADDR="+addr, "PLINTH_PID_FILE="+filepath.Join(dir, "pid")), dir, addr)
	pid := r.waitPID(0, 20*time.Second)
	tmp := link + ".new"
	if err := os.Symlink(filepath.Join(dir, "v2", "app"), tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
	syscall.Kill(pid, syscall.SIGHUP)
	pid2 := r.waitPID(pid, 10*time.Second)
	// The old process accepts until it has heard that the new one is ready
	// (both accept on the same socket meanwhile): ask once it has exited.
	if code := r.reap(pid, 40*time.Second); code != 0 {
		t.Fatalf("old process exited %d, want 0", code)
	}
	if body, err := r.get("/version"); err != nil || body != "v2 "+strconv.Itoa(pid2) {
		t.Fatalf("after switching the link and SIGHUP: %q, %v; want v2 from %d", body, err, pid2)
	}
	syscall.Kill(pid2, syscall.SIGTERM)
	if code := r.reap(pid2, 40*time.Second); code != 0 {
		t.Fatalf("exit %d after SIGTERM, want 0", code)
	}
}
