package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth/internal/syncbuf"
	"github.com/plinth-go/plinth/racetest"
)

// checkout is the Plinth checkout these tests run in (two levels up).
func checkout(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// slow skips t under -short and under the race detector: it runs the go
// command on whole programs.
func slow(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs whole programs with the go command; skipped with -short")
	}
	if racetest.Enabled {
		t.Skip("builds and runs whole programs with the go command; skipped under -race (the run without it covers them)")
	}
}

// cli runs the command line in process with env's environment and
// directory, and returns its output and exit status.
func cli(env *environment, args ...string) (stdout, stderr string, code int) {
	var out, errOut syncbuf.Buffer
	e := *env
	e.stdout, e.stderr = &out, &errOut
	code = runIn(&e, args)
	return out.String(), errOut.String(), code
}

// projectEnv is the environment of the go command in a generated project:
// outside this repository's workspace, and free to update go.mod and
// go.sum (whatever GOFLAGS the test run has, such as .ci/run's
// -mod=readonly), plus extra.
func projectEnv(extra ...string) []string {
	var flags []string
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if !strings.HasPrefix(f, "-mod=") {
			flags = append(flags, f)
		}
	}
	flags = append(flags, "-mod=mod")
	return goEnv(os.Environ(), append([]string{"GOWORK=off", "GOFLAGS=" + strings.Join(flags, " ")}, extra...)...)
}

// goIn runs the go command with args in dir and fails t with its output.
func goIn(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
}

// freeAddr returns a loopback address with a port that was free a moment
// ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// fetch sends one request and returns the status and body; status 0 when
// the request failed.
func fetch(method, url, body string, header map[string]string) (int, string) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// eventually polls cond every 100 ms until it holds or limit passes.
func eventually(limit time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(limit); ; {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}
