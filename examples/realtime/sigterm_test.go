package main

import (
	"bufio"
	"github.com/plinth-go/plinth/ws/wstest"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The example as a process: with 500 idle WebSockets and an SSE stream
// open, SIGTERM gives every WebSocket close 1001, the stream its
// "event: shutdown", and the process exits 0 within the drain delay plus
// the grace period.
func TestSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example (-short)")
	}
	const (
		sockets    = 500
		drainDelay = 200 * time.Millisecond
		grace      = 5 * time.Second
	)
	bin := filepath.Join(t.TempDir(), "realtime")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("go build: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "PLINTH_ADDR="+addr,
		"PLINTH_DRAIN_DELAY="+drainDelay.String(), "PLINTH_SHUTDOWN_TIMEOUT="+grace.String())
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if t.Failed() {
			t.Logf("server output:\n%s", logs.String())
		}
	})
	for deadline := time.Now().Add(20 * time.Second); ; {
		res, err := http.Get("http://" + addr + "/")
		if err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the example does not answer: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	conns := make([]*wstest.RawClient, sockets)
	for i := range conns {
		conns[i] = wstest.Dial(t, addr, "/ws")
	}
	// One echo on each proves every connection is served before the signal.
	for _, c := range conns {
		c.Send(0x1, []byte("up"))
	}
	for _, c := range conns {
		if _, p := c.Message(); string(p) != "up" {
			t.Fatalf("echo %q", p)
		}
	}
	sse, sseErr := http.Get("http://" + addr + "/events")
	if sseErr != nil {
		t.Fatal(sseErr)
	}
	defer sse.Body.Close()
	if sse.StatusCode != http.StatusOK {
		t.Errorf("GET /events: status %d", sse.StatusCode)
	}
	shutdownEvent := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(sse.Body)
		for sc.Scan() {
			if sc.Text() == "event: shutdown" {
				shutdownEvent <- true
				for sc.Scan() { // the stream must end
				}
				return
			}
		}
		shutdownEvent <- false
	}()

	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	codes := make([]int, sockets)
	for i, c := range conns {
		wg.Go(func() {
			codes[i] = c.ExpectClose()
			if codes[i] == 1001 {
				c.CloseReply(1001)
			}
		})
	}
	wg.Wait()
	bad := 0
	for _, code := range codes {
		if code != 1001 {
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d WebSockets did not get close 1001", bad, sockets)
	}
	if sse.StatusCode == http.StatusOK {
		select {
		case ok := <-shutdownEvent:
			if !ok {
				t.Error("the SSE stream ended without event: shutdown")
			}
		case <-time.After(drainDelay + grace + time.Second):
			t.Error("no event: shutdown on the SSE stream")
		}
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit: %v, want status 0", err)
		}
	case <-time.After(drainDelay + grace + 2*time.Second):
		t.Fatal("the process did not exit within the drain delay plus the grace period")
	}
	if d := time.Since(start); d > drainDelay+grace {
		t.Errorf("exit %s after SIGTERM, over the drain delay plus the grace (%s)", d, drainDelay+grace)
	}
}
