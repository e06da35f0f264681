package engine

import (
	"bufio"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestKeptRequestIsCaughtByRace (issue 26): a handler that keeps the
// *http.Request and reads it after returning races with the engine, which
// reuses it for the next request; the race detector reports it. The leaky
// server runs in a child process (the report fails the process that has it).
func TestKeptRequestIsCaughtByRace(t *testing.T) {
	if os.Getenv("PLINTH_TEST_ENGINE_LEAK") == "1" {
		leakRequests(t)
		return
	}
	if !raceEnabled {
		t.Skip("needs -race (go test -race ./internal/engine)")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKeptRequestIsCaughtByRace$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PLINTH_TEST_ENGINE_LEAK=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "DATA RACE") {
		t.Fatalf("the race detector did not report a handler keeping its request (err %v):\n%s", err, out)
	}
}

// leakRequests serves requests to a handler that hands its request to a
// goroutine reading it after the handler returned.
func leakRequests(t *testing.T) {
	var wg sync.WaitGroup
	kept := make(chan *http.Request, 16)
	_, addr := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kept <- r // the mistake: r outlives the handler
	}))
	wg.Go(func() {
		for r := range kept {
			time.Sleep(time.Millisecond)
			_ = r.URL.Path + r.Header.Get("X-N")
		}
	})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	for i := 0; i < 10; i++ {
		c.Write([]byte("GET /" + strings.Repeat("x", i) + " HTTP/1.1\r\nHost: a\r\nX-N: " + strings.Repeat("n", i) + "\r\n\r\n"))
		if resp, err := http.ReadResponse(br, nil); err == nil {
			resp.Body.Close()
		}
	}
	c.Close()
	close(kept)
	wg.Wait()
}
