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
	// PLINTH_HEADER_READ_TIMEOUT ("0" disables). Cost: a read deadline set
	// per request, within noise over real HTTP (docs/performance.md has the
	// measurement and its command).
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

	// MaxHeaderBytes bounds the request line and headers of an HTTP/1.x
	// request, CRLFs included: a block of exactly this size is served, one
	// byte more gets 431. Default 64 KiB (net/http allows 1 MiB). It must be
	// more than 4096: net/http reads 4096 bytes past its own limit, so
	// Plinth gives the server this value less 4096. Over HTTP/2 the bound
	// applies to the decoded header list as net/http's HTTP/2 server counts
	// it. PLINTH_MAX_HEADER_BYTES.
	MaxHeaderBytes int

	// MaxBodyBytes bounds request bodies; beyond it the client gets a 413
	// problem, decided from Content-Length before any byte is read when the
	// length is known. Groups override it with Router.SetBodyLimit. Default
	// 2 MiB. PLINTH_MAX_BODY_BYTES ("0" disables).
	MaxBodyBytes int64

	// MaxConnections bounds open connections; past it new connections get a
	// minimal 503 and are closed at once, without queueing (over TLS they are
	// closed before the handshake, without the 503: a plain-text answer
	// would break the handshake, and completing one only to refuse costs
	// the most expensive part of a connection). Default 10000,
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
	// PLINTH_REUSE_PORT. It only pays where one accept loop is the
	// bottleneck, on many cores (docs/performance.md has the measurement on
	// two cores, within noise, and its command).
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

// envReader reads PLINTH_* variables through lookup (os.LookupEnv, or a map
// in tests), collecting one message per bad value so that every mistake is
// reported at once.
type envReader struct {
	lookup func(string) (string, bool)
	errs   []string
}

// get returns the trimmed value of name; an empty or blank value is unset.
func (e *envReader) get(name string) (string, bool) {
	v, ok := e.lookup(name)
	v = strings.TrimSpace(v)
	return v, ok && v != ""
}

func (e *envReader) fail(format string, args ...any) {
	e.errs = append(e.errs, fmt.Sprintf(format, args...))
}

// off is how a duration or a limit says "switched off" to withDefaults.
const off = -1

// duration reads a Go duration. zero: what "0" means: offOK switches the
// setting off, zeroOK keeps 0 (a setting whose default is 0), otherwise "0"
// is refused.
func (e *envReader) duration(name string, dst *time.Duration, zero zeroMeaning) {
	v, ok := e.get(name)
	if !ok {
		return
	}
	d, err := time.ParseDuration(v)
	if v == "0" {
		d, err = 0, nil
	}
	switch {
	case err != nil:
		e.fail("%s=%q: not a duration (use Go syntax such as 10s or 500ms)", name, v)
	case d < 0:
		e.fail("%s=%q: must not be negative", name, v)
	case d == 0 && zero == offOK:
		*dst = off
	case d == 0 && zero == zeroRefused:
		e.fail("%s=%q: must be positive (this setting cannot be switched off)", name, v)
	default:
		*dst = d
	}
}

// integer reads a non-negative integer; zero as for duration.
func (e *envReader) integer(name string, dst *int64, zero zeroMeaning) {
	v, ok := e.get(name)
	if !ok {
		return
	}
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err != nil:
		e.fail("%s=%q: not an integer", name, v)
	case n < 0:
		e.fail("%s=%q: must not be negative", name, v)
	case n == 0 && zero == offOK:
		*dst = off
	case n == 0 && zero == zeroRefused:
		e.fail("%s=%q: must be positive", name, v)
	default:
		*dst = n
	}
}

// count is integer for int fields.
func (e *envReader) count(name string, dst *int, zero zeroMeaning) {
	n := int64(*dst)
	e.integer(name, &n, zero)
	*dst = int(n)
}

func (e *envReader) str(name string, dst *string) {
	if v, ok := e.get(name); ok {
		*dst = v
	}
}

func (e *envReader) boolean(name string, dst *bool) {
	if v, ok := e.get(name); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			e.fail("%s=%q: not a boolean", name, v)
		}
		*dst = b
	}
}

type zeroMeaning int

const (
	zeroRefused zeroMeaning = iota
	offOK
	zeroOK
)

// badConfiguration joins the messages into the error Run and Serve return.
func badConfiguration(errs []string) error {
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("plinth: bad configuration:\n\t%s", strings.Join(errs, "\n\t"))
}

// withEnv returns c overlaid with the PLINTH_* variables that lookup finds,
// then with defaults for the fields still zero. Negative durations and
// limits (or "0" in the environment, where the field's doc allows it) mean
// "off" and come back as 0 in the fields that support it; the result is
// ready to use. Every bad value is reported in the one error.
func (c Config) withEnv(lookup func(string) (string, bool)) (Config, error) {
	e := &envReader{lookup: lookup}
	c.readEnv(e)
	c = c.withDefaults(e)
	return c, badConfiguration(e.errs)
}

// readEnv overlays the variables on c.
func (c *Config) readEnv(e *envReader) {
	e.str("PLINTH_ADDR", &c.Addr)
	e.duration("PLINTH_HEADER_READ_TIMEOUT", &c.HeaderReadTimeout, offOK)
	e.duration("PLINTH_BODY_READ_TIMEOUT", &c.BodyReadTimeout, offOK)
	e.duration("PLINTH_IDLE_TIMEOUT", &c.IdleTimeout, zeroRefused)
	e.duration("PLINTH_DRAIN_DELAY", &c.DrainDelay, zeroOK)
	e.duration("PLINTH_SHUTDOWN_TIMEOUT", &c.ShutdownTimeout, zeroRefused)
	e.duration("PLINTH_READINESS_CACHE_TTL", &c.ReadinessCacheTTL, zeroRefused)
	e.integer("PLINTH_MIN_BODY_RATE", &c.MinBodyRate, zeroRefused)
	e.integer("PLINTH_MAX_BODY_BYTES", &c.MaxBodyBytes, offOK)
	e.count("PLINTH_MAX_HEADER_BYTES", &c.MaxHeaderBytes, zeroRefused)
	e.count("PLINTH_MAX_CONNECTIONS", &c.MaxConnections, offOK)
	if v, ok := e.get("PLINTH_REUSE_PORT"); ok {
		if k, err := strconv.Atoi(v); err != nil || k < 0 {
			e.fail("PLINTH_REUSE_PORT=%q: not a count of listeners (0 or 1 opens one)", v)
		} else {
			c.ReusePort = k
		}
	}
	e.str("PLINTH_LIVENESS_PATH", &c.LivenessPath)
	e.str("PLINTH_READINESS_PATH", &c.ReadinessPath)
	e.str("PLINTH_TLS_CERT_FILE", &c.TLSCertFile)
	e.str("PLINTH_TLS_KEY_FILE", &c.TLSKeyFile)
	e.boolean("PLINTH_H2C", &c.H2C)
}

// withDefaults fills zero fields with the defaults, turns "off" markers
// (negative values) into 0 and checks what is left, adding to e's errors.
func (c Config) withDefaults(e *envReader) Config {
	c.fillDefaults()
	c.check(e)
	return c
}

// fillDefaults fills zero fields with the defaults and turns "off" markers
// (negative values) into 0.
func (c *Config) fillDefaults() {
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
	c.DrainDelay = max(c.DrainDelay, 0)
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
}

// check adds to e's errors what the filled configuration cannot be.
func (c *Config) check(e *envReader) {
	if c.MaxHeaderBytes <= headerSlack {
		e.fail("PLINTH_MAX_HEADER_BYTES (MaxHeaderBytes) %d: must be more than %d bytes (net/http reads %d bytes past its own limit, which Plinth lowers by as much)",
			c.MaxHeaderBytes, headerSlack, headerSlack)
	}
	for _, probe := range [...]struct{ name, path string }{
		{"PLINTH_LIVENESS_PATH (LivenessPath)", c.LivenessPath},
		{"PLINTH_READINESS_PATH (ReadinessPath)", c.ReadinessPath},
	} {
		if p := probe.path; p != "-" && (!strings.HasPrefix(p, "/") || cleanPath(p) != p) {
			e.fail("%s=%q must be a clean absolute path, or \"-\" to switch the probe off", probe.name, p)
		}
	}
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		e.fail("set both PLINTH_TLS_CERT_FILE and PLINTH_TLS_KEY_FILE, or neither")
	}
	if c.ReusePort < 0 {
		e.fail("PLINTH_REUSE_PORT (ReusePort) %d is negative", c.ReusePort)
	}
}

// headerSlack is what net/http reads past Server.MaxHeaderBytes before it
// answers 431; Plinth gives the server MaxHeaderBytes less this, so that the
// documented limit is the real one.
const headerSlack = 4096

// ResolveConfig returns c with the PLINTH_* environment variables applied and
// the defaults filled in: the configuration Run and Serve would use.
func ResolveConfig(c Config) (Config, error) { return c.withEnv(os.LookupEnv) }

// settings is the App's own configuration, used when it is built: its fields
// (HandlerTimeout, TrustedProxies, ForwardedHeader) with their PLINTH_*
// variables applied, and PLINTH_SKIP_MIDDLEWARE.
type settings struct {
	handlerTimeout time.Duration // New's handler timeout, 0 for none
	trusted        trustedProxies
	forwarded      forwardedHeader
	skip           layerSet // default layers PLINTH_SKIP_MIDDLEWARE drops
}

// readSettings resolves the App's settings, adding bad values to e's errors.
func (a *App) readSettings(e *envReader) settings {
	var s settings
	timeout := a.HandlerTimeout
	e.duration("PLINTH_HANDLER_TIMEOUT", &timeout, offOK)
	switch {
	case timeout == 0:
		s.handlerTimeout = DefaultHandlerTimeout
	case timeout > 0:
		s.handlerTimeout = timeout
	}
	s.trusted = make(trustedProxies, 0, len(a.TrustedProxies))
	for _, p := range a.TrustedProxies {
		if !p.IsValid() {
			e.fail("App.TrustedProxies holds an invalid prefix")
			continue
		}
		s.trusted = append(s.trusted, unmapPrefix(p))
	}
	if v, ok := e.get("PLINTH_TRUSTED_PROXIES"); ok {
		tp, err := parseTrustedProxies(v)
		if err != nil {
			e.fail("PLINTH_TRUSTED_PROXIES=%q: %v", v, err)
		}
		s.trusted = tp
	}
	fh := a.ForwardedHeader
	e.str("PLINTH_FORWARDED_HEADER", &fh)
	var err error
	if s.forwarded, err = parseForwardedHeader(fh); err != nil {
		e.fail("PLINTH_FORWARDED_HEADER (App.ForwardedHeader)=%q: %v", fh, err)
	}
	if v, ok := e.get("PLINTH_SKIP_MIDDLEWARE"); ok {
		if s.skip, err = parseLayerSet(v); err != nil {
			e.fail("PLINTH_SKIP_MIDDLEWARE=%q: %v", v, err)
		}
	}
	return s
}

// resolve returns the server configuration and the App's settings from the
// App's fields and the environment, with every bad value in one error: the
// one place where configuration is read.
func (a *App) resolve(lookup func(string) (string, bool)) (Config, settings, error) {
	e := &envReader{lookup: lookup}
	cfg := a.Config
	cfg.readEnv(e)
	cfg = cfg.withDefaults(e)
	s := a.readSettings(e)
	return cfg, s, badConfiguration(e.errs)
}
