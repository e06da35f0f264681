package data

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
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
	// needs no setup.
	URL string

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
	// returned. Default 1h. PLINTH_DATABASE_MAX_CONN_LIFETIME.
	MaxConnLifetime time.Duration

	// MaxConnIdleTime closes a PostgreSQL connection idle this long.
	// Default 30m. PLINTH_DATABASE_MAX_CONN_IDLE_TIME.
	MaxConnIdleTime time.Duration

	// PingOnCheckout pings every PostgreSQL connection as it leaves the
	// pool. Default false: pgx already pings a connection that was idle
	// more than a second, and a round trip per checkout costs a large part
	// of a one-query request's throughput (bench/tfb's pool-mode table
	// measures it). PLINTH_DATABASE_PING_ON_CHECKOUT ("true" or "false").
	PingOnCheckout bool

	// BusyTimeout is how long a SQLite statement waits for a lock held by
	// another connection before failing with SQLITE_BUSY. Default 5s.
	// PLINTH_DATABASE_BUSY_TIMEOUT.
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

// resolve applies the environment (lookup) and the defaults to c.
func (c Config) resolve(lookup func(string) (string, bool)) (Config, error) {
	var errs []string
	str := func(name string, dst *string) {
		if v, ok := lookup(name); ok && strings.TrimSpace(v) != "" {
			*dst = strings.TrimSpace(v)
		}
	}
	num := func(name string, dst *int) {
		if v, ok := lookup(name); ok && strings.TrimSpace(v) != "" {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 {
				errs = append(errs, fmt.Sprintf("%s=%q: want a whole number, 0 or more", name, v))
				return
			}
			*dst = n
		}
	}
	dur := func(name string, dst *time.Duration) {
		if v, ok := lookup(name); ok && strings.TrimSpace(v) != "" {
			d, err := time.ParseDuration(strings.TrimSpace(v))
			if err != nil || d < 0 {
				errs = append(errs, fmt.Sprintf("%s=%q: want a duration such as 30s", name, v))
				return
			}
			*dst = d
		}
	}
	str("PLINTH_DATABASE_URL", &c.URL)
	if c.URL == "" {
		str("DATABASE_URL", &c.URL)
	}
	num("PLINTH_DATABASE_MAX_CONNS", &c.MaxConns)
	num("PLINTH_DATABASE_MIN_CONNS", &c.MinConns)
	dur("PLINTH_DATABASE_MAX_CONN_LIFETIME", &c.MaxConnLifetime)
	dur("PLINTH_DATABASE_MAX_CONN_IDLE_TIME", &c.MaxConnIdleTime)
	dur("PLINTH_DATABASE_BUSY_TIMEOUT", &c.BusyTimeout)
	num("PLINTH_DATABASE_TX_ATTEMPTS", &c.TxAttempts)
	if v, ok := lookup("PLINTH_DATABASE_PING_ON_CHECKOUT"); ok && strings.TrimSpace(v) != "" {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			errs = append(errs, fmt.Sprintf("PLINTH_DATABASE_PING_ON_CHECKOUT=%q: want true or false", v))
		}
		c.PingOnCheckout = b
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("data: %s", strings.Join(errs, "; "))
	}
	if c.URL == "" {
		c.URL = "sqlite:" + DefaultSQLitePath
	}
	if c.MaxConns == 0 {
		c.MaxConns = max(4, 4*runtime.GOMAXPROCS(0))
	}
	if c.MinConns > c.MaxConns {
		return c, fmt.Errorf("data: MinConns %d is more than MaxConns %d", c.MinConns, c.MaxConns)
	}
	if c.MaxConnLifetime == 0 {
		c.MaxConnLifetime = DefaultMaxConnLifetime
	}
	if c.MaxConnIdleTime == 0 {
		c.MaxConnIdleTime = DefaultMaxConnIdleTime
	}
	if c.BusyTimeout == 0 {
		c.BusyTimeout = DefaultBusyTimeout
	}
	if c.TxAttempts == 0 {
		c.TxAttempts = DefaultTxAttempts
	}
	return c, nil
}

// envLookup is the process environment.
func envLookup(name string) (string, bool) { return os.LookupEnv(name) }
