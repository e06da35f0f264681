package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// probe is one request of the smoke check and what its answer must be.
type probe struct {
	method, path, body string
	status             int
	contains           string
}

// probes returns the smoke requests of an app, in order.
func probes(a *app) []probe {
	if a.template == "minimal" {
		return []probe{{"GET", "/hello/gopher", "", 200, "Hello, gopher!"}}
	}
	ps := []probe{
		{"POST", "/tasks", `{"title":"Write the report"}`, 201, `"title":"Write the report"`},
		{"POST", "/tasks", `{"title":""}`, 422, "title"},
		{"GET", "/tasks/1", "", 200, `"id":1`},
		{"GET", "/tasks", "", 200, `"Write the report"`},
		{"GET", "/tasks/99", "", 404, "does not exist"},
	}
	if a.framework == "plinth" || a.framework == "huma" {
		ps = append(ps, probe{"GET", "/openapi.json", "", 200, `"/tasks/{id}"`})
	}
	return ps
}

// smoke builds the app (warm cache), runs its tests when asked, starts the
// binary on a free port in an empty directory and sends it its probes.
func smoke(c *config, a *app, test bool) error {
	bin := filepath.Join(c.work, "smoke", a.name)
	if out, err := goCmd(a.dir, nil, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	if test {
		if out, err := goCmd(a.dir, nil, "test", "-count=1", "./...").CombinedOutput(); err != nil {
			return fmt.Errorf("go test: %v\n%s", err, out)
		}
	}
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	dir := filepath.Join(c.work, "smoke", a.name+".run")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cmd := exec.Command(bin)
	cmd.Dir = dir
	// ADDR for the peers, PLINTH_ADDR for Plinth; the database in dir.
	cmd.Env = append(os.Environ(), "ADDR="+addr, "PLINTH_ADDR="+addr,
		"PLINTH_DATABASE_URL=sqlite:"+filepath.Join(dir, "data.db"), "DATABASE_URL=", "DATABASE_PATH="+filepath.Join(dir, "data.db"),
		"GIN_MODE=release")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		return err
	}
	defer stop(cmd)
	base := "http://" + addr
	if err := waitUp(base, 20*time.Second); err != nil {
		return fmt.Errorf("%w; its output:\n%s", err, logs.Bytes())
	}
	client := &http.Client{Timeout: 5 * time.Second}
	for _, p := range probes(a) {
		req, err := http.NewRequest(p.method, base+p.path, strings.NewReader(p.body))
		if err != nil {
			return err
		}
		if p.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != p.status || !strings.Contains(string(body), p.contains) {
			return fmt.Errorf("%s %s: %d %.300s, want %d containing %s", p.method, p.path, resp.StatusCode, body, p.status, p.contains)
		}
	}
	logf("smoke %-15s ok (%d probes)", a.name, len(probes(a)))
	return nil
}

// waitUp waits until the server at base answers anything over HTTP.
func waitUp(base string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	client := &http.Client{Timeout: time.Second}
	for {
		resp, err := client.Get(base + "/")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server did not answer on %s within %s: %v", base, limit, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop ends a server: SIGTERM, then SIGKILL after 10 s.
func stop(cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	addr := ln.Addr().String()
	if addr == "" {
		return "", errors.New("no free port")
	}
	return addr, nil
}
