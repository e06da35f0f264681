package plinth

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestEngineTheKeeper is run only as a child of TestEngineKeeperRace, built
// with -race: a plain http.Handler keeps the *http.Request after it
// returns and reads it from another goroutine while the connection serves
// more requests. That is legal net/http code: on both engines there is
// nothing for the race detector to report, and the keeper reads the
// request it kept (an engine that reuses its *http.Request fails here: the
// detector reports the keeper's reads).
func TestEngineTheKeeper(t *testing.T) {
	eng := os.Getenv("PLINTH_TEST_KEEPER")
	if eng == "" {
		t.Skip("run by TestEngineKeeperRace, in a child built with -race")
	}
	app := Bare()
	kept := make(chan *http.Request, 1)
	app.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		select {
		case kept <- r:
		default:
		}
		w.Write([]byte("ok"))
	})
	s, _ := serveOn(t, eng, app)
	c := dialRaw(t, s.addr)
	writeRaw(t, c, "GET /first?a=1 HTTP/1.1\r\nHost: a\r\nX-N: 0\r\n\r\n")
	br := bufio.NewReader(c)
	if _, _, err := readResponse(c, br, soon); err != nil {
		t.Fatal(err)
	}
	r := <-kept // the handler has returned
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var sink int
	wg.Go(func() { // the keeper reads the request it should have let go
		for {
			select {
			case <-stop:
				return
			default:
			}
			if r.Method != "GET" || r.Header.Get("X-N") != "0" || r.RequestURI != "/first?a=1" || r.Host != "a" || r.URL.Path != "/first" {
				t.Errorf("the kept request changed: %s %s host %q X-N %q", r.Method, r.RequestURI, r.Host, r.Header.Get("X-N"))
				return
			}
			sink += len(r.Method) + len(r.Header.Get("X-N")) + len(r.RequestURI) + len(r.Host) + len(r.URL.Path)
			time.Sleep(50 * time.Microsecond)
		}
	})
	for i := 1; i <= 100; i++ {
		writeRaw(t, c, fmt.Sprintf("GET /next/%d HTTP/1.1\r\nHost: b\r\nX-N: %d\r\n\r\n", i, i))
		if _, _, err := readResponse(c, br, soon); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("keeper read %d bytes", sink)
}

// TestEngineKeeperRace builds the tests with -race and runs
// TestEngineTheKeeper on the engine and on net/http, where the race
// detector must report nothing.
func TestEngineKeeperRace(t *testing.T) {
	if os.Getenv("PLINTH_TEST_KEEPER") != "" {
		t.Skip("child")
	}
	if testing.Short() {
		t.Skip("-short: builds the package with -race")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build a -race test binary")
	}
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "keeper.test")
	build := exec.Command(goTool, "test", "-race", "-c", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		if strings.Contains(string(out), "-race is not supported") || strings.Contains(string(out), "requires cgo") {
			t.Skipf("-race is not supported here: %s", out)
		}
		t.Fatalf("go test -race -c: %v\n%s", err, out)
	}
	run := func(eng string) (string, error) {
		cmd := exec.Command(bin, "-test.run", "^TestEngineTheKeeper$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "PLINTH_TEST_KEEPER="+eng, "PLINTH_ENGINE="+eng) // the environment wins over Config
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, eng := range []string{"fast", "std"} {
		if out, err := run(eng); err != nil || strings.Contains(out, "DATA RACE") || !strings.Contains(out, "keeper read") {
			t.Errorf("engine %s: the keeper must pass without a race: %v\n%s", eng, err, tail(out, 4000))
		}
	}
}
