package data

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
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
