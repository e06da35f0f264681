package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/plinthtest"
)

// The check runs the example as a user would: the binary, built once, as
// subprocesses (several at once, in the web, worker and all roles) on one
// database, with the check's own SMTP catcher, reading the database
// directly. Each test has a world of its own (a SQLite file, or a
// PostgreSQL database made for it), so that tests run in parallel and one
// test's periodic ticks never reach another's count.

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	binDir    string
)

// TestMain removes the binary's directory after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binary builds the example once per test run.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the example as processes (-short)")
	}
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "plinth-services-check-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "services")
		cmd := exec.Command("go", "build", "-o", binPath, ".")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out.String())
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// engine is a database the check runs on.
type engine string

const (
	onSQLite   engine = "sqlite"
	onPostgres engine = "postgres"
)

// engines returns the engines to check: SQLite always, PostgreSQL when
// PLINTH_TEST_POSTGRES is set.
func engines() []engine {
	if os.Getenv("PLINTH_TEST_POSTGRES") != "" {
		return []engine{onSQLite, onPostgres}
	}
	return []engine{onSQLite}
}

// forEachEngine runs fn as a parallel subtest per engine, and says in the
// log when PostgreSQL is skipped.
func forEachEngine(t *testing.T, fn func(t *testing.T, e engine)) {
	if os.Getenv("PLINTH_TEST_POSTGRES") == "" {
		plinthtest.Without(t, "postgres", "PostgreSQL not checked: set PLINTH_TEST_POSTGRES (postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable) to run it there too")
	}
	for _, e := range engines() {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			fn(t, e)
		})
	}
}

// world is one deployment: a database, a cache, a mail server, and the
// instances started on them.
type world struct {
	t        *testing.T
	engine   engine
	dbURL    string
	cacheURL string // "" for the default (memory)
	mail     *catcher
	db       *sql.DB
	env      []string // more variables for every instance
	token    string   // PLINTH_ADMIN_TOKEN of every instance, sent by do; "" for none

	dropDatabase func() // PostgreSQL: drops the world's database (it is dropped at the end anyway)
}

var worldSeq atomic.Int64

// newWorld makes an empty database on e (a SQLite file in the test's
// directory, or a PostgreSQL database dropped at the end) and a catcher.
func newWorld(t *testing.T, e engine) *world {
	t.Helper()
	w := &world{t: t, engine: e, mail: newCatcher(t), token: checkToken}
	switch e {
	case onSQLite:
		w.dbURL = "sqlite:" + filepath.Join(t.TempDir(), "services.db")
	case onPostgres:
		admin := os.Getenv("PLINTH_TEST_POSTGRES")
		name := fmt.Sprintf("plinth_services_check_%d_%d", os.Getpid(), worldSeq.Add(1))
		adb, err := sql.Open("pgx", admin)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := adb.Exec("CREATE DATABASE " + name); err != nil {
			adb.Close()
			t.Fatalf("creating the check's database (PLINTH_TEST_POSTGRES): %v", err)
		}
		w.dropDatabase = func() {
			if _, err := adb.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
				t.Errorf("dropping %s: %v", name, err)
			}
		}
		t.Cleanup(func() {
			w.dropDatabase()
			adb.Close()
		})
		u, err := url.Parse(admin)
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/" + name
		w.dbURL = u.String()
	}
	return w
}

// open returns the world's database, read directly (after an instance has
// migrated it).
func (w *world) open() *sql.DB {
	w.t.Helper()
	if w.db == nil {
		db, err := data.Open(context.Background(), data.Config{URL: w.dbURL})
		if err != nil {
			w.t.Fatal(err)
		}
		w.t.Cleanup(func() { db.Close() })
		w.db = db.SQL()
	}
	return w.db
}

// count runs a COUNT query on the world's database.
func (w *world) count(query string, args ...any) int {
	w.t.Helper()
	var n int
	if err := w.open().QueryRow(query, args...).Scan(&n); err != nil {
		w.t.Fatalf("%s: %v", query, err)
	}
	return n
}

// instance is one process of the example.
type instance struct {
	t      *testing.T
	name   string
	addr   string
	cmd    *exec.Cmd
	logs   *lockedBuffer
	exited chan struct{}
	err    error // cmd.Wait's, once exited is closed
	client *http.Client
	token  string // sent as Authorization: Bearer by do, unless ""
}

// checkToken is the operators' token (PLINTH_ADMIN_TOKEN) the check's
// instances get, and send on every request.
const checkToken = "check-admin-token-0123456789abcdef"

// start runs an instance in role (web, worker or all) with the world's
// variables and extra ones (NAME=value), and waits until it answers
// /livez.
func (w *world) start(role string, extra ...string) *instance {
	w.t.Helper()
	bin := binary(w.t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		w.t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	env := []string{
		"PLINTH_ADDR=" + addr,
		"PLINTH_ROLE=" + role,
		"PLINTH_DATABASE_URL=" + w.dbURL,
		"PLINTH_MAIL_URL=" + w.mail.url(),
		"PLINTH_DRAIN_DELAY=0s",
	}
	if w.cacheURL != "" {
		env = append(env, "PLINTH_CACHE_URL="+w.cacheURL)
	}
	if w.token != "" {
		env = append(env, "PLINTH_ADMIN_TOKEN="+w.token)
	}
	env = append(env, w.env...)
	env = append(env, extra...)
	cmd := exec.Command(bin)
	cmd.Env = append(cleanEnviron(), env...)
	in := &instance{t: w.t, name: role + "@" + addr, addr: addr, cmd: cmd, logs: &lockedBuffer{},
		exited: make(chan struct{}), client: &http.Client{Timeout: 10 * time.Second}, token: w.token}
	cmd.Stdout, cmd.Stderr = in.logs, in.logs
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go func() { in.err = cmd.Wait(); close(in.exited) }()
	w.t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-in.exited
		if w.t.Failed() {
			w.t.Logf("output of %s:\n%s", in.name, in.logs.String())
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; {
		res, err := in.client.Get("http://" + addr + "/livez")
		if err == nil {
			res.Body.Close()
			break
		}
		select {
		case <-in.exited:
			w.t.Fatalf("%s exited at start (%v):\n%s", in.name, in.err, in.logs.String())
		default:
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("%s does not answer: %v\n%s", in.name, err, in.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return in
}

// cleanEnviron is the test's environment without PLINTH_ variables (the
// check sets the instance's own) other than PLINTH_TEST_*.
func cleanEnviron() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PLINTH_") && !strings.HasPrefix(kv, "PLINTH_TEST_") || strings.HasPrefix(kv, "DATABASE_URL=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// do sends a request with a JSON body (nil for none) and the instance's
// operators' token, and returns the response and its body.
func (in *instance) do(method, path string, body any) (*http.Response, []byte) {
	in.t.Helper()
	return in.doAs("Bearer "+in.token, method, path, body)
}

// doAs is do with the Authorization header given ("" for none).
func (in *instance) doAs(authorization, method, path string, body any) (*http.Response, []byte) {
	in.t.Helper()
	var rd io.Reader
	if body != nil {
		switch b := body.(type) {
		case string:
			rd = strings.NewReader(b)
		default:
			j, err := json.Marshal(b)
			if err != nil {
				in.t.Fatal(err)
			}
			rd = bytes.NewReader(j)
		}
	}
	req, err := http.NewRequest(method, "http://"+in.addr+path, rd)
	if err != nil {
		in.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if authorization != "" && authorization != "Bearer " {
		req.Header.Set("Authorization", authorization)
	}
	res, err := in.client.Do(req)
	if err != nil {
		in.t.Fatalf("%s %s on %s: %v", method, path, in.name, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		in.t.Fatalf("%s %s on %s: reading the body: %v", method, path, in.name, err)
	}
	return res, b
}

// expect sends a request and fails the test unless the status is want; it
// decodes a JSON body into out (when not nil).
func (in *instance) expect(want int, method, path string, body, out any) http.Header {
	in.t.Helper()
	res, b := in.do(method, path, body)
	if res.StatusCode != want {
		in.t.Fatalf("%s %s on %s: %d %s, want %d", method, path, in.name, res.StatusCode, b, want)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			in.t.Fatalf("%s %s: body %q: %v", method, path, b, err)
		}
	}
	return res.Header
}

// jobState is GET /jobs/{id}'s body.
type jobState struct {
	State   string `json:"state"`
	Attempt int    `json:"attempt"`
	Errors  []struct {
		Attempt int    `json:"attempt"`
		Error   string `json:"error"`
	} `json:"errors"`
}

// job returns the job's state as GET /jobs/{id} answers it.
func (in *instance) job(id int64) jobState {
	in.t.Helper()
	var s jobState
	in.expect(http.StatusOK, "GET", fmt.Sprintf("/jobs/%d", id), nil, &s)
	return s
}

// waitJob polls the job until done says so, or fails after timeout.
func (in *instance) waitJob(id int64, timeout time.Duration, what string, done func(jobState) bool) jobState {
	in.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := in.job(id)
		if done(s) {
			return s
		}
		if time.Now().After(deadline) {
			in.t.Fatalf("job %d: %s not seen within %s; last %+v", id, what, timeout, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// signal sends sig to the instance.
func (in *instance) signal(sig syscall.Signal) {
	in.t.Helper()
	if err := in.cmd.Process.Signal(sig); err != nil {
		in.t.Fatalf("signal %v to %s: %v", sig, in.name, err)
	}
}

// wait waits up to timeout for the instance to exit and returns its exit
// code and how long it took.
func (in *instance) wait(timeout time.Duration) (code int, took time.Duration) {
	in.t.Helper()
	start := time.Now()
	select {
	case <-in.exited:
	case <-time.After(timeout):
		in.t.Fatalf("%s did not exit within %s:\n%s", in.name, timeout, in.logs.String())
	}
	took = time.Since(start)
	if in.err == nil {
		return 0, took
	}
	var ee *exec.ExitError
	if errors.As(in.err, &ee) {
		return ee.ExitCode(), took
	}
	in.t.Fatalf("%s: %v", in.name, in.err)
	return -1, took
}

// eventually polls cond every 50 ms until it holds, or fails after timeout
// with what cond last said.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s (%s)", what, timeout, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lockedBuffer is an output buffer written by a process and read by the
// test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
