package jobs

import (
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/plinth-go/plinth/internal/envconf"
)

// Role is what a process does with jobs: every role declares the kinds
// (so that Enqueue works and refuses unknown ones) and serves HTTP (the
// probes, the admin routes); only RoleWorker and RoleAll run workers and
// periodic schedules.
type Role string

// The roles.
const (
	// RoleAll serves requests and runs workers: one process does
	// everything (the default).
	RoleAll Role = "all"
	// RoleWeb serves requests and enqueues; it runs no worker and no
	// periodic schedule.
	RoleWeb Role = "web"
	// RoleWorker runs workers and periodic schedules; its HTTP server
	// still answers the probes and whatever routes the App has.
	RoleWorker Role = "worker"
)

// The defaults of Config.
const (
	// DefaultJobTimeout bounds one execution of a job: a finite timeout
	// is what lets a backend rescue the job of a killed process (River
	// rescues a running job only after its timeout has passed).
	DefaultJobTimeout = time.Minute
	// DefaultConcurrency is the worker count of the default queue.
	DefaultConcurrency = 10
	// MaxJobTimeout bounds JobTimeout (a day): longer work is split into
	// jobs that record their progress.
	MaxJobTimeout = 24 * time.Hour
)

// Config configures NewClient, which resolves it: the zero value of a field
// means its default; the environment variables named on a field override
// it, and a bad value is NewClient's error, naming the field or the
// variable. Backend is required.
type Config struct {
	// Backend stores and runs the jobs (jobs/riverjobs, or jobstest in
	// tests). Required: NewClient panics when it is nil.
	Backend Backend

	// Queues maps each queue the process works to its number of
	// concurrent workers. Default {"default": DefaultConcurrency}: jobs
	// enqueued on another queue wait until a process works it.
	Queues map[string]int

	// JobTimeout bounds one execution: the worker's context is cancelled
	// when it passes, and the attempt fails (it is retried). Default
	// DefaultJobTimeout (1m), at most MaxJobTimeout. It cannot be switched
	// off: with no timeout a job whose process was killed is never
	// rescued. PLINTH_JOB_TIMEOUT (a Go duration such as 30s or 5m).
	JobTimeout time.Duration

	// Role says whether this process runs workers. Default RoleAll.
	// PLINTH_ROLE (web, worker or all).
	Role Role
}

// envNames returns the variables Config reads: Attach declares them to the
// App so that its check of misspelled PLINTH_* variables knows them.
func envNames() []string { return envconf.NamesOf(new(Config).read) }

// read overlays the variables on c.
func (c *Config) read(e *envconf.Reader) {
	readJobTimeout(e, &c.JobTimeout)
	if v, ok := e.Lookup("PLINTH_ROLE"); ok {
		switch r := Role(strings.ToLower(v)); r {
		case RoleAll, RoleWeb, RoleWorker:
			c.Role = r
		default:
			e.Failf("PLINTH_ROLE=%q: want web, worker or all", v)
		}
	}
}

// readJobTimeout overlays PLINTH_JOB_TIMEOUT on *d: the one parser of the
// variable, for Config and ResolveJobTimeout.
func readJobTimeout(e *envconf.Reader, d *time.Duration) {
	v, ok := e.Lookup("PLINTH_JOB_TIMEOUT")
	if !ok {
		return
	}
	t, err := time.ParseDuration(v)
	switch {
	case v == "off" || v == "none" || v == "-1" || (err == nil && t <= 0):
		e.Failf("PLINTH_JOB_TIMEOUT=%q: a job timeout cannot be switched off: with none, a job whose process was killed is never rescued; give a finite duration such as 5m (default %s)", v, DefaultJobTimeout)
	case err != nil:
		e.Failf("PLINTH_JOB_TIMEOUT=%q: not a duration (use Go syntax such as 30s or 5m)", v)
	default:
		*d = t
	}
}

// checkJobTimeout returns d with the default applied, failing e when d is
// negative or above MaxJobTimeout.
func checkJobTimeout(e *envconf.Reader, d time.Duration) time.Duration {
	switch {
	case d == 0:
		return DefaultJobTimeout
	case d < 0:
		e.Failf("Config.JobTimeout %s: a job timeout cannot be switched off: with none, a job whose process was killed is never rescued (0 means the default, %s)", d, DefaultJobTimeout)
	case d > MaxJobTimeout:
		e.Failf("Config.JobTimeout %s: at most %s; split longer work into jobs that record their progress", d, MaxJobTimeout)
	}
	return d
}

// ResolveJobTimeout resolves a job timeout exactly as ResolveConfig
// resolves Config.JobTimeout, for a backend module that takes the timeout
// on its own (jobs/riverjobs): PLINTH_JOB_TIMEOUT, read with lookup (nil means
// os.LookupEnv), overrides d; 0 means DefaultJobTimeout. The variable set
// to "0", "off" or a negative duration, or not a duration, and d negative
// or above MaxJobTimeout, are errors with ResolveConfig's text, naming the
// variable or the field, under "jobs: bad configuration:". It reads no
// other variable.
func ResolveJobTimeout(d time.Duration, lookup func(string) (string, bool)) (time.Duration, error) {
	e := envconf.New(lookup)
	readJobTimeout(e, &d)
	d = checkJobTimeout(e, d)
	return d, e.Err("jobs")
}

// ResolveConfig applies the environment (PLINTH_JOB_TIMEOUT, PLINTH_ROLE)
// and the defaults to c, as NewClient does; a backend module reads the result
// (jobs/riverjobs sets River's job timeout and rescue delay from JobTimeout).
// Every bad value is named in the one error.
func ResolveConfig(c Config) (Config, error) { return c.resolve(os.LookupEnv) }

// resolve is ResolveConfig over lookup.
func (c Config) resolve(lookup func(string) (string, bool)) (Config, error) {
	e := envconf.New(lookup)
	c.read(e)
	c.JobTimeout = checkJobTimeout(e, c.JobTimeout)
	switch c.Role {
	case "":
		c.Role = RoleAll
	case RoleAll, RoleWeb, RoleWorker:
	default:
		e.Failf("Config.Role %q: want jobs.RoleWeb, jobs.RoleWorker or jobs.RoleAll", c.Role)
	}
	if len(c.Queues) == 0 {
		c.Queues = map[string]int{DefaultQueue: DefaultConcurrency}
	} else {
		qs := make(map[string]int, len(c.Queues))
		for _, name := range slices.Sorted(maps.Keys(c.Queues)) {
			n := c.Queues[name]
			switch {
			case !validName(name):
				e.Failf("Config.Queues: queue name %q: use 1 to 128 letters, digits, '_', '-' or '.'", name)
			case n < 1:
				e.Failf("Config.Queues[%q] = %d: a queue needs at least one worker", name, n)
			}
			qs[name] = n
		}
		c.Queues = qs
	}
	return c, e.Err("jobs")
}

// Workers reports whether the role runs workers and periodic schedules.
func (r Role) Workers() bool { return r == RoleAll || r == RoleWorker || r == "" }

// String returns the role's name.
func (r Role) String() string {
	if r == "" {
		return string(RoleAll)
	}
	return string(r)
}
