package verify

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Config says what to verify. The zero value of every field except BaseURL
// and Fortunes is valid and selects the documented default.
type Config struct {
	// BaseURL is the server's root, e.g. http://127.0.0.1:8080. Required.
	BaseURL string

	// DatabaseURL is the libpq/pgx URL of the benchmark database. When empty
	// the checks that read the database (updates persistence and the query
	// count) are reported as WARN and skipped.
	DatabaseURL string

	// Tests lists the test types to verify. Default: all of AllTests().
	Tests []string

	// Concurrency is the number of requests, all sent at once on their own
	// connections, of the query-count check. Default 512, as TFB.
	Concurrency int

	// DateWait is the pause between the two requests of the Date check.
	// Default 3 s, as TFB.
	DateWait time.Duration

	// LowMargin is the fraction below the expected query and row counts that
	// is still a pass. Default 0; TFB allows 0.015 on hosts with 2 CPUs or
	// fewer (the command sets it from runtime.NumCPU).
	LowMargin float64

	// StatsTimeout bounds the wait for table statistics to arrive when
	// pg_stat_statements is unavailable. PostgreSQL 15 flushes an idle
	// backend's pending statistics after up to 10 s. Default 12 s.
	StatsTimeout time.Duration

	// Fortunes are the rows of the fortune table (see ParseFortunes).
	// Required when the fortunes test is selected.
	Fortunes []Fortune

	// Report, when set, is called with each result as soon as it is known,
	// one call at a time. Run returns all results either way.
	Report func(Result)
}

// AllTests returns the TFB test types in the order they are verified.
func AllTests() []string {
	names := make([]string, len(testTypes))
	for i, t := range testTypes {
		names[i] = t.name
	}
	return names
}

// normalized returns cfg with defaults filled in, or an error for invalid
// settings.
func (cfg Config) normalized() (Config, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return cfg, fmt.Errorf("base URL %q: want http://host:port", cfg.BaseURL)
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if len(cfg.Tests) == 0 {
		cfg.Tests = AllTests()
	}
	for _, t := range cfg.Tests {
		if testByName(t) == nil {
			return cfg, fmt.Errorf("unknown test %q (known: %s)", t, strings.Join(AllTests(), ","))
		}
		if t == "fortunes" && len(cfg.Fortunes) == 0 {
			return cfg, fmt.Errorf("the fortunes test needs the fortune table's rows (Config.Fortunes)")
		}
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 512
	}
	if cfg.DateWait <= 0 {
		cfg.DateWait = 3 * time.Second
	}
	if cfg.StatsTimeout <= 0 {
		cfg.StatsTimeout = 12 * time.Second
	}
	if cfg.LowMargin < 0 || cfg.LowMargin >= 1 {
		return cfg, fmt.Errorf("low margin %v: want a fraction in [0, 1)", cfg.LowMargin)
	}
	return cfg, nil
}

func (cfg Config) selected(name string) bool {
	for _, t := range cfg.Tests {
		if t == name {
			return true
		}
	}
	return false
}
