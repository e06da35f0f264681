package data

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
)

// serve runs app on a loopback listener until t ends; it returns the base
// URL and a function that stops the App and returns Serve's error.
func serve(t *testing.T, app *plinth.App) (string, func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	stop := func() error { cancel(); return <-done }
	t.Cleanup(func() { cancel() })
	return "http://" + ln.Addr().String(), stop
}

func status(t *testing.T, url string) int {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second} // a bound against a hang, not a timing assertion
	res, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	res.Body.Close()
	return res.StatusCode
}

// waitStatus polls url until it answers want, for at most 20 s.
func waitStatus(t *testing.T, url string, want int) {
	t.Helper()
	got := 0
	for range 200 {
		if got = status(t, url); got == want {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: %d, want %d", url, got, want)
}

// privateCluster makes and starts a PostgreSQL cluster of its own in a
// temp dir (initdb, pg_ctl; as the postgres user when running as root) and
// returns its URL and functions that stop and start it.
func privateCluster(t *testing.T) (url string, stop, start func()) {
	t.Helper()
	bin := os.Getenv("PLINTH_TEST_PG_BIN")
	if bin == "" {
		matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
		if len(matches) == 0 {
			t.Skip("no PostgreSQL server binaries (initdb, pg_ctl) found; set PLINTH_TEST_PG_BIN to their directory")
		}
		bin = matches[len(matches)-1]
	}
	dir, err := os.MkdirTemp("", "plinth-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var prefix []string
	if os.Geteuid() == 0 { // initdb refuses to run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root and there is no postgres user to run initdb as")
		}
		if out, err := exec.Command("chown", u.Uid+":"+u.Gid, dir).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
		prefix = []string{"runuser", "-u", "postgres", "--"}
	}
	run := func(args ...string) {
		t.Helper()
		all := append(append([]string{}, prefix...), args...)
		if out, err := exec.Command(all[0], all[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	data := filepath.Join(dir, "data")
	run(filepath.Join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync")
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", port, dir)
	start = func() {
		run(filepath.Join(bin, "pg_ctl"), "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "start")
	}
	stop = func() { run(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop") }
	start()
	t.Cleanup(func() {
		all := append(append([]string{}, prefix...), filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop")
		_ = exec.Command(all[0], all[1:]...).Run()
	})
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=2", port), stop, start
}

// A database restart: /readyz stays 200 and names the database degraded (a
// database every instance shares must not take them all out of rotation),
// liveness stays 200, a request that needs the database fails fast with 503
// and Retry-After, a page that does not keeps working, and the pool serves
// again once the database is back, without a restart; the App closes the
// database after its drain.
func TestDatabaseOutage(t *testing.T) {
	needPostgres(t)
	url, stopDB, startDB := privateCluster(t)
	db := openTest(t, Config{URL: url})
	app := plinth.Bare()
	app.Config.ReadinessCacheTTL = time.Millisecond
	app.Config.ReadinessJSON = true
	db.Attach(app)
	app.Get("/", func(c *plinth.Ctx) error { return c.Text(200, "ok") })
	app.Get("/q", func(c *plinth.Ctx) error {
		var n int
		if err := db.Pgx().QueryRow(c.Context(), "SELECT 1").Scan(&n); err != nil {
			return err
		}
		return c.Text(http.StatusOK, "db ok")
	})
	base, stop := serve(t, app)
	waitStatus(t, base+"/q", http.StatusOK)
	if code, body := get(t, base+"/readyz"); code != 200 || !strings.Contains(body, `"database":"ok"`) {
		t.Fatalf("/readyz with the database up: %d %s", code, body)
	}
	stopDB()
	for range 3 { // the pooled connections were cut: each is found broken, then dials fail
		start := time.Now()
		res, err := (&http.Client{Timeout: 10 * time.Second}).Get(base + "/q")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "2" {
			t.Errorf("a query with the database down: %d Retry-After %q, want 503 with Retry-After: 2", res.StatusCode, res.Header.Get("Retry-After"))
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("a query with the database down took %v: it should fail fast", took)
		}
	}
	if code, body := get(t, base+"/readyz"); code != 200 || !strings.Contains(body, `"database":"degraded"`) {
		t.Errorf("/readyz with the database down: %d %s, want 200 naming it degraded", code, body)
	}
	if got := status(t, base+"/"); got != http.StatusOK {
		t.Errorf("a page without the database: %d while it is down", got)
	}
	if got := status(t, base+"/livez"); got != http.StatusOK {
		t.Errorf("liveness %d while the database is down: it must not restart the process", got)
	}
	startDB()
	back := time.Now()
	waitStatus(t, base+"/q", http.StatusOK)
	if took := time.Since(back); took > 5*time.Second {
		t.Errorf("the pool served again %v after the database's return, want within 5 s", took)
	}
	if code, body := get(t, base+"/readyz"); code != 200 || !strings.Contains(body, `"database":"ok"`) {
		t.Errorf("/readyz after the database's return: %d %s", code, body)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(context.Background()); err == nil {
		t.Error("the database is still open after the App stopped")
	}
}

// get returns url's status and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := (&http.Client{Timeout: 10 * time.Second}).Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// SQLite: the OnStop hook closes it too.
func TestShutdownClosesSQLite(t *testing.T) {
	db := openTest(t, Config{URL: "sqlite:" + filepath.Join(t.TempDir(), "s.db")})
	app := plinth.Bare()
	db.Attach(app)
	base, stop := serve(t, app)
	waitStatus(t, base+"/readyz", http.StatusOK)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(context.Background()); err == nil {
		t.Error("open after the App stopped")
	}
}

// A request that waits for a connection of an exhausted pool past its
// handler deadline gets a 503 problem, not a hang; the pool serves again
// once a connection is back.
func TestPoolExhaustionIs503(t *testing.T) {
	base := needPostgres(t)
	db := openTest(t, Config{URL: tempPostgres(t, base), MaxConns: 1})
	app := plinth.New()
	app.HandlerTimeout = 300 * time.Millisecond
	db.Attach(app)
	app.Get("/q", func(c *plinth.Ctx) error {
		var n int
		if err := db.Pgx().QueryRow(c.Context(), "SELECT 1").Scan(&n); err != nil {
			return err
		}
		return c.Text(http.StatusOK, "ok")
	})
	url, _ := serve(t, app)
	if got := status(t, url+"/q"); got != http.StatusOK {
		t.Fatalf("%d before exhaustion", got)
	}
	held, err := db.Pgx().Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := status(t, url+"/q"); got != http.StatusServiceUnavailable {
		t.Errorf("exhausted pool: %d, want 503", got)
	}
	held.Release()
	if got := status(t, url+"/q"); got != http.StatusOK {
		t.Errorf("%d after the connection came back", got)
	}
}
