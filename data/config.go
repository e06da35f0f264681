package data

import (
	"cmp"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/data/internal/envconf"
)

// Config is the database configuration Open resolves. Its zero value means
// the documented defaults; each field names the environment variable that
// overrides it (as the core's Config does). A bad value fails Open with an
// error naming the variable.
type Config struct {
	// URL selects the database: postgres:// or postgresql:// gives a pgx
	// pool; sqlite:PATH (sqlite:./data.db, sqlite::memory:) gives SQLite.
	// PLINTH_DATABASE_URL overrides it; when both are empty DATABASE_URL is
	// used, and when that is empty too, sqlite:./data.db: the first run
	// needs no setup (Attach logs a warning saying so at start; Engine
	// makes it an error).
	URL string

	// Engine, when set, is the engine the application needs: Open fails,
	// naming the variables to set, when the URL resolves to another one,
	// including the SQLite file used when no URL is set at all. A
	// PostgreSQL application sets Engine: data.Postgres, so that a
	// deployment that forgot PLINTH_DATABASE_URL stops at start instead of
	// creating ./data.db and failing later on PostgreSQL's SQL. Default
	// "": either engine.
	Engine Dialect

	// MaxConns is PostgreSQL's pool size. Default 4 per GOMAXPROCS, at
	// least 4: a request holds a connection only while its query runs, so
	// a few connections per core keep the cores busy while others wait on
	// the database, and the server's connection limit (100 by default)
	// stays far off even with several instances (bench/tfb's pool-mode
	// table measures the choice). PLINTH_DATABASE_MAX_CONNS.
	MaxConns int

	// MinConns is the number of connections PostgreSQL's pool keeps open
	// when idle. Default 0. PLINTH_DATABASE_MIN_CONNS.
	MinConns int

	// MaxConnLifetime closes a PostgreSQL connection this long after it
	// was made (with up to 10 % jitter), so that connections move to a
	// replaced or failed-over server and per-connection memory is
	// returned. Default 1h; plinth.Off keeps connections for ever.
	// PLINTH_DATABASE_MAX_CONN_LIFETIME ("0" off).
	MaxConnLifetime time.Duration

	// MaxConnIdleTime closes a PostgreSQL connection idle this long.
	// Default 30m; plinth.Off keeps idle connections open.
	// PLINTH_DATABASE_MAX_CONN_IDLE_TIME ("0" off).
	MaxConnIdleTime time.Duration

	// PingOnCheckout pings every PostgreSQL connection as it leaves the
	// pool. Default false: pgx already pings a connection that was idle
	// more than a second, and a round trip per checkout costs a large part
	// of a one-query request's throughput (bench/tfb's pool-mode table
	// measures it). PLINTH_DATABASE_PING_ON_CHECKOUT ("true" or "false").
	PingOnCheckout bool

	// BusyTimeout is how long a SQLite statement waits for a lock held by
	// another connection before failing with SQLITE_BUSY. Default 5s;
	// plinth.Off fails at once. PLINTH_DATABASE_BUSY_TIMEOUT ("0" off).
	BusyTimeout time.Duration

	// TxAttempts bounds the tries of WithTx when a transaction fails with a
	// serialization failure or a deadlock (PostgreSQL 40001, 40P01) or
	// SQLite's busy error. Default 5. PLINTH_DATABASE_TX_ATTEMPTS.
	TxAttempts int
}

// The defaults of Config.
const (
	DefaultMaxConnLifetime = time.Hour
	DefaultMaxConnIdleTime = 30 * time.Minute
	DefaultBusyTimeout     = 5 * time.Second
	DefaultTxAttempts      = 5
	DefaultSQLitePath      = "./data.db"
)

// envNames returns the variables resolve reads, in its order: Attach
// declares them to the App, so that they are not reported as misspelled.
func envNames() []string { return envconf.NamesOf(new(Config).read) }

// read overlays the variables on c.
func (c *Config) read(e *envconf.Reader) {
	e.String("PLINTH_DATABASE_URL", &c.URL)
	if c.URL == "" {
		if v, ok := e.Lookup("DATABASE_URL"); ok {
			c.URL = v
		}
	}
	e.Int("PLINTH_DATABASE_MAX_CONNS", &c.MaxConns, envconf.ZeroRefused)
	e.Int("PLINTH_DATABASE_MIN_CONNS", &c.MinConns, envconf.ZeroValue)
	e.Duration("PLINTH_DATABASE_MAX_CONN_LIFETIME", &c.MaxConnLifetime, envconf.ZeroOff)
	e.Duration("PLINTH_DATABASE_MAX_CONN_IDLE_TIME", &c.MaxConnIdleTime, envconf.ZeroOff)
	e.Duration("PLINTH_DATABASE_BUSY_TIMEOUT", &c.BusyTimeout, envconf.ZeroOff)
	e.Int("PLINTH_DATABASE_TX_ATTEMPTS", &c.TxAttempts, envconf.ZeroRefused)
	e.Bool("PLINTH_DATABASE_PING_ON_CHECKOUT", &c.PingOnCheckout)
}

// resolve applies the environment (lookup) and the defaults to c. Every
// bad value is named in the one error.
func (c Config) resolve(lookup func(string) (string, bool)) (Config, error) {
	c, _, err := c.resolveURL(lookup)
	return c, err
}

// resolveURL is resolve, also reporting whether the URL is the default, set
// nowhere.
func (c Config) resolveURL(lookup func(string) (string, bool)) (Config, bool, error) {
	e := envconf.New(lookup)
	c.read(e)
	defaulted := false
	if c.URL == "" {
		c.URL = "sqlite:" + DefaultSQLitePath
		defaulted = true
	}
	switch c.Engine {
	case "":
	case Postgres, SQLite:
		if got := engineOf(c.URL); got != c.Engine {
			if defaulted {
				e.Failf("Config.Engine is %s, and no database URL is set (PLINTH_DATABASE_URL, DATABASE_URL or Config.URL): set one such as postgres://user:password@host:5432/db", c.Engine)
			} else {
				e.Failf("Config.Engine is %s, and the database URL %q is %s", c.Engine, Redact(c.URL), cmp.Or(string(got), "neither postgres nor sqlite"))
			}
		}
	default:
		e.Failf("Config.Engine %q: want data.Postgres, data.SQLite or \"\" for either", c.Engine)
	}
	switch {
	case c.MaxConns == 0:
		c.MaxConns = max(4, 4*runtime.GOMAXPROCS(0))
	case c.MaxConns < 0:
		e.Failf("Config.MaxConns %d: a pool cannot be unbounded (0 means the default, 4 per GOMAXPROCS)", c.MaxConns)
	}
	if c.MinConns < 0 {
		e.Failf("Config.MinConns %d is negative", c.MinConns)
	}
	if c.MaxConns > 0 && c.MinConns > c.MaxConns {
		e.Failf("Config.MinConns %d is more than MaxConns %d", c.MinConns, c.MaxConns)
	}
	offable := func(d *time.Duration, v time.Duration) {
		switch {
		case *d == 0:
			*d = v
		case *d < 0:
			*d = plinth.Off
		}
	}
	offable(&c.MaxConnLifetime, DefaultMaxConnLifetime)
	offable(&c.MaxConnIdleTime, DefaultMaxConnIdleTime)
	offable(&c.BusyTimeout, DefaultBusyTimeout)
	switch {
	case c.TxAttempts == 0:
		c.TxAttempts = DefaultTxAttempts
	case c.TxAttempts < 0:
		e.Failf("Config.TxAttempts %d: a transaction is tried at least once (0 means the default, %d)", c.TxAttempts, DefaultTxAttempts)
	}
	return c, defaulted, e.Err("data")
}

// engineOf returns the engine a URL names, "" for none Open knows.
func engineOf(url string) Dialect {
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		return Postgres
	case strings.HasPrefix(url, "sqlite:"):
		return SQLite
	}
	return ""
}

// envLookup is the process environment.
func envLookup(name string) (string, bool) { return os.LookupEnv(name) }
