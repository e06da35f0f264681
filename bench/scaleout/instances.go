package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// fleet is the example app's instances, each on its own port, all started
// from the one path bin (a copy of web-v1 at first; the rolling upgrade
// renames web-v2 over it), with the same environment but for PLINTH_ADDR
// and PLINTH_PID_FILE.
type fleet struct {
	procs *procs
	dir   string
	bin   string   // the path the instances are started from (os.Args[0] of each)
	env   []string // the environment every instance shares
	inst  []*instance
	probe *http.Client // direct requests to an instance, a new connection each
}

// instance is one of the fleet: a port, a PID file, and every process that
// served as it (an upgrade or a restart adds one).
type instance struct {
	n       int    // 1, 2, 3
	name    string // web1, web2, web3: the load balancer's name for it
	port    int
	pidFile string

	mu   sync.Mutex
	pids []int
}

// newFleet prepares n instances on the given ports.
func newFleet(p *procs, dir, bin string, env []string, ports []int) *fleet {
	f := &fleet{procs: p, dir: dir, bin: bin, env: env,
		probe: &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	for i, port := range ports {
		n := i + 1
		f.inst = append(f.inst, &instance{n: n, name: "web" + strconv.Itoa(n), port: port,
			pidFile: filepath.Join(dir, fmt.Sprintf("web-%d.pid", n))})
	}
	return f
}

// addr is the instance's address.
func (in *instance) addr() string { return "127.0.0.1:" + strconv.Itoa(in.port) }

// addPID records pid as having served as the instance.
func (in *instance) addPID(pid int) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if pid <= 0 || slices.Contains(in.pids, pid) {
		return false
	}
	in.pids = append(in.pids, pid)
	return true
}

// allPIDs returns every PID that served as the instance.
func (in *instance) allPIDs() []int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return slices.Clone(in.pids)
}

// pid reads the PID file: the process serving, 0 when there is none.
func (in *instance) pid() int {
	b, err := os.ReadFile(in.pidFile)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// servers is the fleet as the load balancer's configuration names it.
func (f *fleet) servers() []lbServer {
	var s []lbServer
	for _, in := range f.inst {
		s = append(s, lbServer{Name: in.name, Addr: in.addr()})
	}
	return s
}

// start starts instance i (0-based) from f.bin and waits until it is
// ready: its PID file names it and /readyz answers 200.
func (f *fleet) start(i int, timeout time.Duration) (int, error) {
	in := f.inst[i]
	cmd := exec.Command(f.bin)
	cmd.Env = append(slices.Clone(f.env), "PLINTH_ADDR="+in.addr(), "PLINTH_PID_FILE="+in.pidFile)
	cmd.Dir = f.dir
	if err := f.procs.start(cmd, fmt.Sprintf("web-%d.log", in.n), false); err != nil {
		return 0, err
	}
	pid := cmd.Process.Pid
	in.addPID(pid)
	err := waitFor(timeout, 50*time.Millisecond, func() error {
		if !alive(pid) {
			e, _ := f.procs.exitOf(pid)
			return fmt.Errorf("%s (pid %d) exited at start (%s): see web-%d.log:\n%s", in.name, pid, e.Status, in.n, f.logTail(in.n))
		}
		if in.pid() != pid {
			return fmt.Errorf("%s: PID file does not name %d yet", in.name, pid)
		}
		return f.readyz(i)
	})
	return pid, err
}

// logTail returns the last lines of instance n's log.
func (f *fleet) logTail(n int) string {
	b, _ := os.ReadFile(filepath.Join(f.dir, fmt.Sprintf("web-%d.log", n)))
	return tail(string(b), 10)
}

// get asks instance i directly (not through the load balancer) for path.
func (f *fleet) get(i int, path string) (*http.Response, []byte, error) {
	req, _ := http.NewRequest(http.MethodGet, "http://"+f.inst[i].addr()+path, nil)
	req.Header.Set("Accept", "application/json")
	resp, err := f.probe.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp, body, err
}

// readyz is nil when instance i's /readyz answers 200.
func (f *fleet) readyz(i int) error {
	resp, body, err := f.get(i, "/readyz")
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s /readyz: %d %s", f.inst[i].name, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return nil
}

// versionAnswer is GET /api/version's answer.
type versionAnswer struct {
	Version string `json:"version"`
	PID     int    `json:"pid"`
}

// version asks instance i directly for /api/version.
func (f *fleet) version(i int) (versionAnswer, error) {
	var v versionAnswer
	resp, body, err := f.get(i, "/api/version")
	if err != nil {
		return v, err
	}
	if resp.StatusCode != http.StatusOK {
		return v, fmt.Errorf("%s /api/version: %d", f.inst[i].name, resp.StatusCode)
	}
	err = json.Unmarshal(body, &v)
	return v, err
}

// signal sends sig to the process serving as instance i.
func (f *fleet) signal(i int, sig syscall.Signal) (int, error) {
	pid := f.inst[i].pid()
	if pid == 0 {
		return 0, fmt.Errorf("%s: no PID file", f.inst[i].name)
	}
	return pid, syscall.Kill(pid, sig)
}

// upgrade sends SIGHUP to instance i and waits until the PID file names
// another process, /readyz answers 200 and /api/version says want.
func (f *fleet) upgrade(i int, want string, timeout time.Duration) (oldPID, newPID int, err error) {
	in := f.inst[i]
	oldPID, err = f.signal(i, syscall.SIGHUP)
	if err != nil {
		return oldPID, 0, err
	}
	err = waitFor(timeout, 20*time.Millisecond, func() error {
		newPID = in.pid()
		if newPID == oldPID || newPID == 0 {
			return fmt.Errorf("%s: PID file still names %d after SIGHUP", in.name, oldPID)
		}
		if err := f.readyz(i); err != nil {
			return err
		}
		v, err := f.version(i)
		if err != nil {
			return err
		}
		if v.Version != want {
			return fmt.Errorf("%s /api/version: %q (pid %d), want %q", in.name, v.Version, v.PID, want)
		}
		return nil
	})
	in.addPID(newPID)
	return oldPID, newPID, err
}

// stopAll kills every process that served as an instance and still runs.
func (f *fleet) stopAll() {
	for _, in := range f.inst {
		for _, pid := range in.allPIDs() {
			if alive(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// copyFile copies src to dst through a temporary file renamed over dst, so
// that a running binary at dst is replaced, not written into.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := dst + ".tmp"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}
