//go:build linux

package plinth_test

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestUpgradeVariants: an upgrade hands over every ReusePort listener, on
// net/http and on the fast engine (under load on the plain-HTTP variants:
// no request fails), and TLS and h2c listeners alike; each old process
// exits 0, and SIGTERM stops the new one with 0.
func TestUpgradeVariants(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a binary")
	}
	shared := t.TempDir()
	bin := filepath.Join(shared, "app")
	buildUpgradeApp(t, "v1", bin)
	cert, key := writeSelfSigned(t, shared)
	for _, tc := range []struct {
		name      string
		env       []string
		listeners int
		tls       bool
	}{
		{"reuseport", []string{"PLINTH_REUSE_PORT=2"}, 2, false},
		{"reuseport-engine", []string{"PLINTH_REUSE_PORT=2", "PLINTH_ENGINE=fast"}, 2, false},
		{"tls", []string{"PLINTH_TLS_CERT_FILE=" + cert, "PLINTH_TLS_KEY_FILE=" + key}, 1, true},
		{"h2c", []string{"PLINTH_H2C=true"}, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			addr := freeAddr(t)
			env := append([]string{"PLINTH_ADDR=" + addr, "PLINTH_PID_FILE=" + filepath.Join(dir, "pid")}, tc.env...)
			r := startApp(t, appCmd(bin, env...), dir, addr)
			pid0 := r.waitPID(0, 20*time.Second)

			scheme, tr := "http", &http.Transport{DisableKeepAlives: true}
			if tc.tls {
				scheme = "https"
				tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
			}
			client := &http.Client{Timeout: 5 * time.Second, Transport: tr}
			version := func() string {
				t.Helper()
				res, err := client.Get(scheme + "://" + addr + "/version")
				if err != nil {
					t.Fatalf("GET /version: %v", err)
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				if res.StatusCode != 200 {
					t.Fatalf("GET /version: %d %s", res.StatusCode, b)
				}
				return string(b)
			}
			if got := version(); got != "v1 "+strconv.Itoa(pid0) {
				t.Fatalf("before the upgrade /version = %q, want the first process %d", got, pid0)
			}

			var st *loadStats
			stopLoad := func() {}
			if !tc.tls {
				ctx, cancel := context.WithCancel(context.Background())
				var wait func()
				st, wait = runLoad(ctx, addr, 4)
				stopLoad = func() { cancel(); wait() }
				defer stopLoad()
				time.Sleep(phase())
			}

			syscall.Kill(pid0, syscall.SIGHUP)
			pid1 := r.waitPID(pid0, 10*time.Second)
			if code := r.reap(pid0, 40*time.Second); code != 0 {
				t.Errorf("old process exited %d after the upgrade, want 0", code)
			}
			line := r.waitLog(10*time.Second, "handed over by the previous process")
			if n := strings.Count(line, addr); n != tc.listeners {
				t.Errorf("the new process took %d listeners, want %d: %s", n, tc.listeners, line)
			}
			for range 20 { // new connections, spread over every listener
				if got := version(); got != "v1 "+strconv.Itoa(pid1) {
					t.Fatalf("after the upgrade /version = %q, want the new process %d", got, pid1)
				}
			}
			if st != nil {
				time.Sleep(phase())
				stopLoad()
				if ok, failed := st.report(t); failed != 0 || ok == 0 {
					t.Errorf("%d of %d requests failed across the upgrade; want 0 (and some served)", failed, ok+failed)
				}
			}
			if log, _ := os.ReadFile(r.logPath); tc.name == "reuseport-engine" && strings.Count(string(log), `"engine":"fast"`) < 2 {
				t.Errorf("both processes should serve on the fast engine; log:\n%s", log)
			}
			syscall.Kill(pid1, syscall.SIGTERM)
			if code := r.reap(pid1, 40*time.Second); code != 0 {
				t.Errorf("exit %d after SIGTERM, want 0", code)
			}
		})
	}
}
