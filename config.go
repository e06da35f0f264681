package plinth

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config is the server configuration read by App.Run and App.Serve. Its zero
// value means the documented defaults; each field can be overridden by the
// PLINTH_* environment variable its comment names (durations in Go syntax
// such as "2s"). A bad value fails at startup with an error naming the
// variable.
//
// Durations use 0 for "default"; where a limit can be switched off, a
// negative value in code, or "0" in the environment, switches it off.
type Config struct {
	// Addr is the listen address. Default ":8080". PLINTH_ADDR.
	Addr string

	// HeaderReadTimeout bounds reading a request's headers, the defence
	// against slowloris; net/http's zero value has none. Default 10s.
	// PLINTH_HEADER_READ_TIMEOUT ("0" disables). Cost: with it off, the
	// minimal scenario served 1.2% more requests per second by median over 6
	// alternating wrk runs whose spread was about ±20%, so within noise
	// (bench/run-http-ab.sh header-timeout; bench/results/http-ab-header-timeout-*.md).
	HeaderReadTimeout time.Duration

	// BodyReadTimeout bounds how long reading a request body may stall: the
	// connection's read deadline starts at this much after the headers and
	// grows by one second for every MinBodyRate bytes received, so a
	// slow-but-steady upload is never cut while a trickle (slow-body attack)
	// is. It also bounds the discarding of a body the handler left unread.
	// Default 10s. PLINTH_BODY_READ_TIMEOUT ("0" disables).
	BodyReadTimeout time.Duration

	// MinBodyRate is the upload rate, in bytes per second, that keeps a body
	// read alive past BodyReadTimeout. Default 1024. PLINTH_MIN_BODY_RATE.
	MinBodyRate int64

	// IdleTimeout closes keep-alive connections idle for this long. Default
	// 120s. PLINTH_IDLE_TIMEOUT.
	IdleTimeout time.Duration

	// MaxHeaderBytes bounds the request line and headers; beyond it the
	// client gets 431. Default 64 KiB (net/http allows 1 MiB).
	// PLINTH_MAX_HEADER_BYTES.
	MaxHeaderBytes int

	// MaxBodyBytes bounds request bodies; beyond it the client gets a 413
	// problem, decided from Content-Length before any byte is read when the
	// length is known. Groups override it with Router.SetBodyLimit. Default
	// 2 MiB. PLINTH_MAX_BODY_BYTES ("0" disables).
	MaxBodyBytes int64

	// MaxConnections bounds open connections; past it new connections get a
	// minimal 503 and are closed at once, without queueing. Default 10000,
	// lowered (with a warning) to fit the process's open-file limit less 128.
	// PLINTH_MAX_CONNECTIONS ("0" disables).
	MaxConnections int

	// DrainDelay is how long readiness answers 503 before the listeners
	// close, for load balancers to notice. Default 0. PLINTH_DRAIN_DELAY.
	DrainDelay time.Duration

	// ShutdownTimeout is the grace period in-flight requests get to finish
	// after the listeners close; what is left is then cut off and counted.
	// Default 30s. PLINTH_SHUTDOWN_TIMEOUT.
	ShutdownTimeout time.Duration

	// LivenessPath and ReadinessPath are the health probes' paths, answered
	// before routing. Defaults "/livez" and "/readyz"; "-" switches a probe
	// off. PLINTH_LIVENESS_PATH, PLINTH_READINESS_PATH.
	LivenessPath  string
	ReadinessPath string

	// ReadinessCacheTTL is how long a readiness result is reused, so that a
	// probe storm cannot stampede a dependency. Default 1s.
	// PLINTH_READINESS_CACHE_TTL.
	ReadinessCacheTTL time.Duration

	// TLSCertFile and TLSKeyFile, when both set, serve HTTPS with HTTP/2.
	// PLINTH_TLS_CERT_FILE, PLINTH_TLS_KEY_FILE.
	TLSCertFile string
	TLSKeyFile  string

	// H2C also serves cleartext HTTP/2 (prior knowledge). Default false.
	// PLINTH_H2C.
	H2C bool

	// ReusePort opens this many listeners on Addr with SO_REUSEPORT (Linux),
	// letting the kernel spread connections; 0 or 1 opens one. Default 0.
	// PLINTH_REUSE_PORT. Measured on a 2-core machine (server on one core,
	// wrk on the other), two listeners served 0.94 times the requests per
	// second of one, within noise: it only pays where one accept loop is the
	// bottleneck, on many cores (bench/results/http-ab-reuseport-*.md).
	ReusePort int

	// Logger receives the startup line and server errors. Nil means the
	// App's Logger, then slog.Default().
	Logger *slog.Logger
}

// Defaults of Config, applied to its zero fields.
const (
	DefaultAddr              = ":8080"
	DefaultHeaderReadTimeout = 10 * time.Second
	DefaultBodyReadTimeout   = 10 * time.Second
	DefaultMinBodyRate       = 1024
	DefaultIdleTimeout       = 120 * time.Second
	DefaultMaxHeaderBytes    = 64 << 10
	DefaultMaxBodyBytes      = 2 << 20
	DefaultMaxConnections    = 10000
	DefaultShutdownTimeout   = 30 * time.Second
	DefaultReadinessCacheTTL = time.Second
)

// withEnv returns c overlaid with the PLINTH_* variables that lookup finds,
// then with defaults for the fields still zero. Negative durations and
// limits (or "0" in the environment, where the field's doc allows it) mean
// "off" and come back as 0 in the fields that support it; the result is
// ready to use.
func (c Config) withEnv(lookup func(string) (string, bool)) (Config, error) {
	var errs []string
	env := func(name string) (string, bool) {
		v, ok := lookup(name)
		return strings.TrimSpace(v), ok && strings.TrimSpace(v) != ""
	}
	// zeroDisables: "0" switches the setting off; otherwise "0" is refused,
	// except where zero is the setting's default (the drain delay).
	dur := func(name string, dst *time.Duration, zeroDisables bool) {
		v, ok := env(name)
		if !ok {
			return
		}
		d, err := time.ParseDuration(v)
		if v == "0" {
			d, err = 0, nil
		}
		switch {
		case err != nil:
			errs = append(errs, fmt.Sprintf("%s=%q: not a duration (use Go syntax such as 10s or 500ms)", name, v))
		case d < 0:
			errs = append(errs, fmt.Sprintf("%s=%q: must not be negative", name, v))
		case d == 0 && zeroDisables:
			*dst = -1
		case d == 0 && name != "PLINTH_DRAIN_DELAY":
			errs = append(errs, fmt.Sprintf("%s=%q: must be positive (this setting cannot be switched off)", name, v))
		default:
			*dst = d
		}
	}
	integer := func(name string, dst *int64, zeroDisables bool) {
		v, ok := env(name)
		if !ok {
			return
		}
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case err != nil:
			errs = append(errs, fmt.Sprintf("%s=%q: not an integer", name, v))
		case n < 0:
			errs = append(errs, fmt.Sprintf("%s=%q: must not be negative", name, v))
		case n == 0 && zeroDisables:
			*dst = -1
		case n == 0:
			errs = append(errs, fmt.Sprintf("%s=%q: must be positive", name, v))
		default:
			*dst = n
		}
	}
	str := func(name string, dst *string) {
		if v, ok := env(name); ok {
			*dst = v
		}
	}
	str("PLINTH_ADDR", &c.Addr)
	dur("PLINTH_HEADER_READ_TIMEOUT", &c.HeaderReadTimeout, true)
	dur("PLINTH_BODY_READ_TIMEOUT", &c.BodyReadTimeout, true)
	dur("PLINTH_IDLE_TIMEOUT", &c.IdleTimeout, false)
	dur("PLINTH_DRAIN_DELAY", &c.DrainDelay, false)
	dur("PLINTH_SHUTDOWN_TIMEOUT", &c.ShutdownTimeout, false)
	dur("PLINTH_READINESS_CACHE_TTL", &c.ReadinessCacheTTL, false)
	integer("PLINTH_MIN_BODY_RATE", &c.MinBodyRate, false)
	integer("PLINTH_MAX_BODY_BYTES", &c.MaxBodyBytes, true)
	var n int64
	integer("PLINTH_MAX_HEADER_BYTES", &n, false)
	if n > 0 {
		c.MaxHeaderBytes = int(n)
	}
	n = 0
	integer("PLINTH_MAX_CONNECTIONS", &n, true)
	if n != 0 {
		c.MaxConnections = int(n)
	}
	if v, ok := env("PLINTH_REUSE_PORT"); ok {
		if k, err := strconv.Atoi(v); err != nil || k < 0 {
			errs = append(errs, fmt.Sprintf("PLINTH_REUSE_PORT=%q: not a count of listeners (0 or 1 opens one)", v))
		} else {
			c.ReusePort = k
		}
	}
	str("PLINTH_LIVENESS_PATH", &c.LivenessPath)
	str("PLINTH_READINESS_PATH", &c.ReadinessPath)
	str("PLINTH_TLS_CERT_FILE", &c.TLSCertFile)
	str("PLINTH_TLS_KEY_FILE", &c.TLSKeyFile)
	if v, ok := env("PLINTH_H2C"); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("PLINTH_H2C=%q: not a boolean", v))
		}
		c.H2C = b
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("plinth: bad configuration:\n\t%s", strings.Join(errs, "\n\t"))
	}
	return c.withDefaults()
}

// withDefaults fills zero fields with the defaults, turns "off" markers
// (negative values) into 0 and checks what is left.
func (c Config) withDefaults() (Config, error) {
	def := func(d *time.Duration, v time.Duration) {
		switch {
		case *d == 0:
			*d = v
		case *d < 0:
			*d = 0
		}
	}
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	def(&c.HeaderReadTimeout, DefaultHeaderReadTimeout)
	def(&c.BodyReadTimeout, DefaultBodyReadTimeout)
	def(&c.IdleTimeout, DefaultIdleTimeout)
	def(&c.ShutdownTimeout, DefaultShutdownTimeout)
	def(&c.ReadinessCacheTTL, DefaultReadinessCacheTTL)
	if c.DrainDelay < 0 {
		c.DrainDelay = 0
	}
	if c.MinBodyRate <= 0 {
		c.MinBodyRate = DefaultMinBodyRate
	}
	if c.MaxHeaderBytes <= 0 {
		c.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	switch {
	case c.MaxBodyBytes == 0:
		c.MaxBodyBytes = DefaultMaxBodyBytes
	case c.MaxBodyBytes < 0:
		c.MaxBodyBytes = 0
	}
	switch {
	case c.MaxConnections == 0:
		c.MaxConnections = DefaultMaxConnections
	case c.MaxConnections < 0:
		c.MaxConnections = 0
	}
	if c.LivenessPath == "" {
		c.LivenessPath = "/livez"
	}
	if c.ReadinessPath == "" {
		c.ReadinessPath = "/readyz"
	}
	for _, probe := range [...]struct{ name, path string }{
		{"PLINTH_LIVENESS_PATH (LivenessPath)", c.LivenessPath},
		{"PLINTH_READINESS_PATH (ReadinessPath)", c.ReadinessPath},
	} {
		if p := probe.path; p != "-" && (!strings.HasPrefix(p, "/") || cleanPath(p) != p) {
			return c, fmt.Errorf("plinth: bad configuration: %s=%q must be a clean absolute path, or \"-\" to switch the probe off", probe.name, p)
		}
	}
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		return c, fmt.Errorf("plinth: bad configuration: set both PLINTH_TLS_CERT_FILE and PLINTH_TLS_KEY_FILE, or neither")
	}
	if c.ReusePort < 0 {
		return c, fmt.Errorf("plinth: bad configuration: PLINTH_REUSE_PORT (ReusePort) %d is negative", c.ReusePort)
	}
	return c, nil
}

// ResolveConfig returns c with the PLINTH_* environment variables applied and
// the defaults filled in: the configuration Run and Serve would use.
func ResolveConfig(c Config) (Config, error) { return c.withEnv(os.LookupEnv) }
