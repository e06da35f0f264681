package main

import (
	"bytes"
	"embed"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/template"
	"time"
)

// lbTemplates are the load balancers' configurations, kept as files so
// that the documentation can quote them.
//
//go:embed haproxy.cfg.tmpl nginx.conf.tmpl
var lbTemplates embed.FS

// lbConfig is what the templates are given.
type lbConfig struct {
	Dir     string // the temporary directory: pid file, socket, logs
	Port    int    // where the load balancer listens, on 127.0.0.1
	Workers int    // nginx's worker processes
	Servers []lbServer
}

// lbServer is one instance as the load balancer names it.
type lbServer struct {
	Name string // web1, web2, ...
	Addr string // 127.0.0.1:port
}

// loadBalancer is haproxy or nginx, a child of the harness in the
// foreground.
type loadBalancer struct {
	kind    string // "haproxy" or "nginx"
	procs   *procs
	cfg     lbConfig
	cfgFile string
	cmd     *exec.Cmd
	exit    chan struct{}
}

// renderLB writes the configuration of kind from its template.
func renderLB(kind string, cfg lbConfig) ([]byte, error) {
	name := map[string]string{"haproxy": "haproxy.cfg.tmpl", "nginx": "nginx.conf.tmpl"}[kind]
	if name == "" {
		return nil, fmt.Errorf("LB=%q: want haproxy or nginx", kind)
	}
	t, err := template.ParseFS(lbTemplates, name)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, cfg); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// startLB writes the configuration, checks it, starts the load balancer
// and waits until it listens.
func startLB(p *procs, kind string, cfg lbConfig) (*loadBalancer, error) {
	text, err := renderLB(kind, cfg)
	if err != nil {
		return nil, err
	}
	lb := &loadBalancer{kind: kind, procs: p, cfg: cfg}
	var check *exec.Cmd
	switch kind {
	case "haproxy":
		lb.cfgFile = filepath.Join(cfg.Dir, "haproxy.cfg")
		check = exec.Command("haproxy", "-c", "-f", lb.cfgFile)
		lb.cmd = exec.Command("haproxy", "-W", "-db", "-f", lb.cfgFile)
	case "nginx":
		lb.cfgFile = filepath.Join(cfg.Dir, "nginx.conf")
		for _, d := range []string{"body", "proxy", "fastcgi", "uwsgi", "scgi"} {
			if err := os.MkdirAll(filepath.Join(cfg.Dir, "nginx", d), 0o755); err != nil {
				return nil, err
			}
		}
		check = exec.Command("nginx", "-t", "-p", cfg.Dir, "-c", lb.cfgFile)
		lb.cmd = exec.Command("nginx", "-p", cfg.Dir, "-c", lb.cfgFile)
	}
	if err := os.WriteFile(lb.cfgFile, text, 0o644); err != nil {
		return nil, err
	}
	if err := p.run(check, kind+".log"); err != nil {
		return nil, err
	}
	if err := p.start(lb.cmd, kind+".log", true); err != nil {
		return nil, err
	}
	exit := make(chan struct{})
	lb.exit = exit
	go func() {
		_ = lb.cmd.Wait()
		p.forget(lb.cmd.Process.Pid)
		close(exit)
	}()
	err = waitFor(10*time.Second, 50*time.Millisecond, func() error {
		select {
		case <-exit:
			return fmt.Errorf("%s exited at start: see %s.log", kind, kind)
		default:
		}
		resp, err := http.Get(lb.url("/livez"))
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	})
	return lb, err
}

// url is the URL of path through the load balancer.
func (lb *loadBalancer) url(path string) string {
	return "http://127.0.0.1:" + strconv.Itoa(lb.cfg.Port) + path
}

// workers lists the master's worker processes.
func (lb *loadBalancer) workers() []int {
	w := childrenOf(lb.cmd.Process.Pid)
	slices.Sort(w)
	return w
}

// reload reloads the configuration without a restart: SIGUSR2 to haproxy's
// master (master-worker mode; the new worker gets the listening socket over
// the stats socket, -x, and the old worker finishes its connections),
// SIGHUP to nginx's master (new workers on the same socket, the old ones
// finish theirs). It returns the workers before and after, once a new
// worker runs.
func (lb *loadBalancer) reload() (before, after []int, err error) {
	before = lb.workers()
	sig := syscall.SIGUSR2
	if lb.kind == "nginx" {
		sig = syscall.SIGHUP
	}
	if err := lb.cmd.Process.Signal(sig); err != nil {
		return before, nil, err
	}
	err = waitFor(10*time.Second, 20*time.Millisecond, func() error {
		after = lb.workers()
		for _, w := range after {
			if !slices.Contains(before, w) {
				return nil
			}
		}
		return errTimeout
	})
	if err != nil {
		err = fmt.Errorf("%s reload: no new worker within 10 s (workers %v)", lb.kind, after)
	}
	return before, after, err
}

// stop stops the load balancer: SIGTERM, then SIGKILL after 3 s.
func (lb *loadBalancer) stop() {
	if lb == nil || lb.cmd == nil || lb.cmd.Process == nil {
		return
	}
	_ = lb.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-lb.exit:
	case <-time.After(3 * time.Second):
		_ = syscall.Kill(-lb.cmd.Process.Pid, syscall.SIGKILL)
		_ = lb.cmd.Process.Kill()
		<-lb.exit
	}
}

// backendName turns the load balancer's X-Plinth-Backend header into an
// instance name (web1...): haproxy sends the server's name; nginx sends
// $upstream_addr, every address tried ("a, b"), of which the last answered.
func backendName(header string, servers []lbServer) string {
	if header == "" {
		return ""
	}
	if i := strings.LastIndexByte(header, ','); i >= 0 {
		header = header[i+1:]
	}
	header = strings.TrimSpace(header)
	for _, s := range servers {
		if header == s.Name || header == s.Addr {
			return s.Name
		}
	}
	return header
}
