package data

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestConfigDefaults(t *testing.T) {
	c, err := Config{}.resolve(noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if c.URL != "sqlite:./data.db" || c.MaxConns != max(4, 4*runtime.GOMAXPROCS(0)) || c.MaxConnLifetime != time.Hour ||
		c.MaxConnIdleTime != 30*time.Minute || c.BusyTimeout != 5*time.Second || c.TxAttempts != 5 || c.PingOnCheckout {
		t.Errorf("defaults: %+v", c)
	}
}

func TestConfigEnvironment(t *testing.T) {
	// PLINTH_DATABASE_URL wins over the code's URL; DATABASE_URL only fills an empty one.
	c, err := Config{URL: "sqlite:code.db"}.resolve(envOf(map[string]string{
		"PLINTH_DATABASE_URL": "postgres://a@h/db", "DATABASE_URL": "postgres://b@h/db",
		"PLINTH_DATABASE_MAX_CONNS": "12", "PLINTH_DATABASE_PING_ON_CHECKOUT": "true", "PLINTH_DATABASE_BUSY_TIMEOUT": "250ms",
	}))
	if err != nil || c.URL != "postgres://a@h/db" || c.MaxConns != 12 || !c.PingOnCheckout || c.BusyTimeout != 250*time.Millisecond {
		t.Errorf("%+v %v", c, err)
	}
	c, _ = Config{}.resolve(envOf(map[string]string{"DATABASE_URL": "postgres://b@h/db"}))
	if c.URL != "postgres://b@h/db" {
		t.Errorf("DATABASE_URL not used: %q", c.URL)
	}
	c, _ = Config{URL: "sqlite:code.db"}.resolve(envOf(map[string]string{"DATABASE_URL": "postgres://b@h/db"}))
	if c.URL != "sqlite:code.db" {
		t.Errorf("DATABASE_URL overrode the code's URL: %q", c.URL)
	}
	for k, v := range map[string]string{
		"PLINTH_DATABASE_MAX_CONNS": "many", "PLINTH_DATABASE_MIN_CONNS": "-1", "PLINTH_DATABASE_MAX_CONN_LIFETIME": "1 hour",
		"PLINTH_DATABASE_PING_ON_CHECKOUT": "yes please", "PLINTH_DATABASE_TX_ATTEMPTS": "x",
	} {
		if _, err := (Config{}).resolve(envOf(map[string]string{k: v})); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%q: %v, want an error naming it", k, v, err)
		}
	}
	if _, err := (Config{MinConns: 9, MaxConns: 4}).resolve(noEnv); err == nil {
		t.Error("MinConns > MaxConns accepted")
	}
}

func TestOpenRefusals(t *testing.T) {
	ctx := context.Background()
	for _, u := range []string{"mysql://root@h/db", "sqlite:", "postgres://u:secret@127.0.0.1:1/db?connect_timeout=1"} {
		_, err := open(ctx, Config{URL: u}, noEnv)
		if err == nil {
			t.Errorf("%s: opened", u)
			continue
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: the error shows the password: %v", u, err)
		}
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:pw@h:5432/db?sslmode=disable": "postgres://u:xxxxx@h:5432/db?sslmode=disable",
		"postgres://u@h/db":                         "postgres://u@h/db",
		"sqlite:./data.db":                          "sqlite:./data.db",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// SQLite is opened with WAL, the busy timeout and foreign keys on.
func TestSQLitePragmas(t *testing.T) {
	db := openTest(t, Config{URL: "sqlite:" + t.TempDir() + "/p.db", BusyTimeout: 1234 * time.Millisecond})
	ctx := context.Background()
	var mode string
	var fk, busy int
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode %q %v", mode, err)
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys %d %v", fk, err)
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy); err != nil || busy != 1234 {
		t.Errorf("busy_timeout %d %v", busy, err)
	}
	if db.Dialect() != SQLite || db.Pgx() != nil {
		t.Error("not SQLite")
	}
}

// TestConfigVariables: every variable Open reads, with a good
// value and what it resolves to ("0" switches off what can be off), and a
// bad value; the table is checked against the names Open reads, and every
// bad value is named in one error.
func TestConfigVariables(t *testing.T) {
	rows := []struct {
		name, good string
		check      func(Config) bool
		bad        string
	}{
		{"PLINTH_DATABASE_URL", "postgres://u@h/db", func(c Config) bool { return c.URL == "postgres://u@h/db" }, ""},
		{"DATABASE_URL", "sqlite:x.db", func(c Config) bool { return c.URL == "sqlite:x.db" }, ""},
		{"PLINTH_DATABASE_MAX_CONNS", "12", func(c Config) bool { return c.MaxConns == 12 }, "0"},
		{"PLINTH_DATABASE_MIN_CONNS", "0", func(c Config) bool { return c.MinConns == 0 }, "-1"},
		{"PLINTH_DATABASE_MAX_CONN_LIFETIME", "0", func(c Config) bool { return c.MaxConnLifetime == plinth.Off }, "1 hour"},
		{"PLINTH_DATABASE_MAX_CONN_IDLE_TIME", "0", func(c Config) bool { return c.MaxConnIdleTime == plinth.Off }, "-5m"},
		{"PLINTH_DATABASE_BUSY_TIMEOUT", "250ms", func(c Config) bool { return c.BusyTimeout == 250*time.Millisecond }, "5"},
		{"PLINTH_DATABASE_TX_ATTEMPTS", "3", func(c Config) bool { return c.TxAttempts == 3 }, "0"},
		{"PLINTH_DATABASE_PING_ON_CHECKOUT", "true", func(c Config) bool { return c.PingOnCheckout }, "yes please"},
	}
	var names []string
	bad := map[string]string{}
	for _, r := range rows {
		names = append(names, r.name)
		if r.bad != "" {
			bad[r.name] = r.bad
		}
		c, err := Config{}.resolve(envOf(map[string]string{r.name: r.good}))
		if err != nil || !r.check(c) {
			t.Errorf("%s=%q: %+v, %v", r.name, r.good, c, err)
		}
	}
	if got := envNames(); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(names))) {
		t.Errorf("Open reads %v, the table has %v", got, names)
	}
	_, err := Config{}.resolve(envOf(bad))
	if err == nil {
		t.Fatal("bad values accepted")
	}
	if strings.Count(err.Error(), "bad configuration") != 1 {
		t.Errorf("want one error:\n%v", err)
	}
	for name, v := range bad {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("the error does not name %s=%q:\n%v", name, v, err)
		}
	}
	// Off in code is kept through any number of passes.
	c, err := Config{MaxConnLifetime: plinth.Off, BusyTimeout: -time.Second}.resolve(noEnv)
	if err != nil || c.MaxConnLifetime != plinth.Off || c.BusyTimeout != plinth.Off {
		t.Fatalf("%+v %v", c, err)
	}
	if again, err := c.resolve(noEnv); err != nil || again != c {
		t.Errorf("a second pass changed %+v into %+v (%v)", c, again, err)
	}
}

// TestConfigEngine: Config.Engine makes an application that
// needs PostgreSQL fail to open without its URL, instead of creating a
// SQLite file.
func TestConfigEngine(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	_, err := open(context.Background(), Config{Engine: Postgres}, noEnv)
	if err == nil || !strings.Contains(err.Error(), "PLINTH_DATABASE_URL") || !strings.Contains(err.Error(), "no database URL") {
		t.Errorf("Engine Postgres without a URL: %v, want an error naming PLINTH_DATABASE_URL", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data.db")); !os.IsNotExist(err) {
		t.Errorf("a SQLite file was created: %v", err)
	}
	_, err = Config{Engine: Postgres, URL: "sqlite:x.db"}.resolve(noEnv)
	if err == nil || !strings.Contains(err.Error(), "sqlite") {
		t.Errorf("Engine Postgres with a SQLite URL: %v", err)
	}
	_, err = Config{Engine: SQLite}.resolve(envOf(map[string]string{"DATABASE_URL": "postgres://u:secret@h/db"}))
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("Engine SQLite with a PostgreSQL URL: %v (want an error without the password)", err)
	}
	if _, err := (Config{Engine: "mysql"}).resolve(noEnv); err == nil {
		t.Error("an unknown engine accepted")
	}
	for _, c := range []Config{{Engine: SQLite}, {Engine: Postgres, URL: "postgresql://u@h/db"}, {}} {
		if _, err := c.resolve(noEnv); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if base := os.Getenv(postgresEnv); base != "" {
		db := openTest(t, Config{Engine: Postgres, URL: base})
		if db.Dialect() != Postgres {
			t.Errorf("dialect %s", db.Dialect())
		}
	} else {
		t.Logf("PostgreSQL not opened: set %s", postgresEnv)
	}
}

// TestAttachLogsTheDatabase: at start, the App logs the
// database in use, the password redacted, and warns when it is the default
// file because no URL was set.
func TestAttachLogsTheDatabase(t *testing.T) {
	run := func(db *DB) string {
		t.Helper()
		var buf bytes.Buffer
		app := plinth.New()
		app.Logger = slog.New(slog.NewTextHandler(&buf, nil))
		app.Config.ShutdownTimeout = time.Second
		db.Attach(app)
		ctx, cancel := context.WithCancel(context.Background())
		app.OnStart(func(context.Context) error { cancel(); return nil })
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		if err := app.Serve(ctx, ln); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	t.Chdir(t.TempDir())
	db, err := open(context.Background(), Config{}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	out := run(db)
	if !strings.Contains(out, "level=WARN") || !strings.Contains(out, "no database URL is set") || !strings.Contains(out, "location=./data.db") {
		t.Errorf("default database: no warning naming it:\n%s", out)
	}
	path := filepath.Join(t.TempDir(), "app.db")
	out = run(openTest(t, Config{URL: "sqlite:" + path}))
	if !strings.Contains(out, `msg="data: database" engine=sqlite location=`+path) || strings.Contains(out, "no database URL") {
		t.Errorf("SQLite file: got\n%s", out)
	}
	if base := os.Getenv(postgresEnv); base != "" {
		u, _ := url.Parse(base)
		u.User = url.UserPassword(u.User.Username(), "s3cret")
		db := openTest(t, Config{URL: u.String()}) // trust auth: the password is ignored
		out := run(db)
		if !strings.Contains(out, "engine=postgres") || strings.Contains(out, "s3cret") || !strings.Contains(out, "xxxxx") {
			t.Errorf("PostgreSQL: got\n%s", out)
		}
	} else {
		t.Logf("PostgreSQL not logged: set %s", postgresEnv)
	}
}
