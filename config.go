package plinth

import (
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/plinth-go/plinth/internal/envconf"
)

// Config is the server configuration read by App.Run and App.Serve. Its zero
// value means the documented defaults; each field can be overridden by the
// PLINTH_* environment variable its comment names (durations in Go syntax
// such as "2s", sizes in bytes or with KiB, MiB, GiB). A bad value fails at
// startup with an error naming the variable, every bad value in one error.
//
// One rule for every field: 0 means the default; Off (any negative value)
// switches off a setting whose comment says it can be, and is an error for
// the others; in the environment, "0" switches off. ResolveConfig keeps
// Off in the fields that are off, so a resolved Config resolves to itself.
type Config struct {
	// Addr is the listen address. Default ":8080". PLINTH_ADDR.
	Addr string

	// HeaderReadTimeout bounds reading a request's headers, the defence
	// against slowloris; net/http's zero value has none. Default 10s; Off
	// disables it. PLINTH_HEADER_READ_TIMEOUT ("0" disables). Cost: a read
	// deadline set per request, within noise over real HTTP
	// (docs/performance.md has the measurement and its command).
	HeaderReadTimeout time.Duration

	// BodyReadTimeout bounds how long reading a request body may stall: the
	// connection's read deadline starts at this much after the headers and
	// grows by one second for every MinBodyRate bytes received, so a
	// slow-but-steady upload is never cut while a trickle (slow-body attack)
	// is. It also bounds the discarding of a body the handler left unread.
	// Default 10s; Off disables it. PLINTH_BODY_READ_TIMEOUT ("0" disables).
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
	// 2 MiB; Off means no limit. PLINTH_MAX_BODY_BYTES ("0" disables).
	MaxBodyBytes int64

	// MaxConnections bounds open connections; past it new connections get a
	// minimal 503 and are closed at once, without queueing (over TLS they are
	// closed before the handshake, without the 503: a plain-text answer
	// would break the handshake, and completing one only to refuse costs
	// the most expensive part of a connection). Default 10000,
	// lowered (with a warning) to fit the process's open-file limit less 128.
	// Off means no limit. PLINTH_MAX_CONNECTIONS ("0" disables).
	MaxConnections int

	// DrainDelay is how long readiness answers 503 before the listeners
	// close, for load balancers to notice. Default 0 (none; Off is the same).
	// PLINTH_DRAIN_DELAY.
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

	// ReadinessJSON makes the readiness probe answer JSON always: an object
	// naming each check (ReadinessCheck, DegradedCheck) "ok", "degraded" or
	// "down", such as {"cache":"degraded","db":"ok"}, with 200 unless a
	// ReadinessCheck is down (503). Default false: text ("ready", or a 503
	// problem naming the failing checks), and JSON only for a probe whose
	// Accept names application/json. While draining the answer is the 503
	// problem in either mode. PLINTH_READINESS_JSON.
	ReadinessJSON bool

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

	// Upgrade says whether Run upgrades in place on SIGHUP: it starts the
	// binary at its own path again, hands it the listening sockets, waits
	// until it is ready and only then drains (docs/deploy.md). "" (the
	// default) means on when standard input is not a terminal (systemd, a
	// supervisor) and off in a terminal, where SIGHUP stops the process as
	// SIGTERM does, and for PID 1 (a container's init, whose exit would end
	// the container); "on" or "off" force it. Off, SIGHUP is ignored. Serve, with the caller's listener, never upgrades.
	// PLINTH_UPGRADE.
	Upgrade string

	// UpgradeTimeout bounds how long the new process of an upgrade gets to
	// become ready; past it the new process is killed and the old one keeps
	// serving. Default 30s. PLINTH_UPGRADE_TIMEOUT.
	UpgradeTimeout time.Duration

	// PIDFile, when set, is the path of a file holding the PID of the process
	// currently serving: Run writes it atomically (temporary file, rename)
	// once the process is ready, an upgraded process over its predecessor's,
	// and removes it at exit if it still names this process. For systemd's
	// PIDFile= and deploy scripts. Default "" (none). PLINTH_PID_FILE.
	PIDFile string
	// Engine chooses the HTTP/1.1 server under the App: "" or "std" is
	// net/http (the default, unchanged); "fast" is Plinth's own engine
	// (internal/engine, docs/engine.md): pooled requests, pipelined
	// HTTP/1.1, the same App and handlers, with documented differences (a
	// handler must not keep the *http.Request, its Header, URL or Body after
	// it returns). The engine refuses TLS, HTTP/2 and H2C at Serve. Any other
	// value is an error. PLINTH_ENGINE.
	Engine string

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
	DefaultUpgradeTimeout    = 30 * time.Second
)

// The values of Config.Engine (PLINTH_ENGINE); "" is EngineStd.
const (
	EngineStd  = "std"  // net/http
	EngineFast = "fast" // Plinth's HTTP/1.1 engine (docs/engine.md)
)

// Off switches a limit or a timeout off where it can be: MaxBodyBytes: Off
// means no body limit, HeaderReadTimeout: Off no header deadline,
// SetBodyLimit(Off) no limit for a group. It is an untyped constant, usable
// for durations and counts alike. Zero never means off: in every Config
// field and every SetX it means the default. In the environment, "0" is
// what switches a setting off. Any negative value means Off too, and
// ResolveConfig turns it into Off, so that a resolved configuration
// resolves to itself.
const Off = envconf.Off

// envReader is the one reader of PLINTH_* variables, shared with the
// modules (internal/envconf): every bad value is collected for one error.
type envReader = envconf.Reader

// badConfiguration joins the messages into the error Run and Serve return.
func badConfiguration(errs []string) error { return envconf.Join("plinth", errs) }

// withEnv returns c overlaid with the PLINTH_* variables that lookup finds,
// then with defaults for the fields still zero; negative values of the
// fields that can be off become Off. The result is ready to use, and
// resolves to itself. Every bad value is reported in the one error.
func (c Config) withEnv(lookup func(string) (string, bool)) (Config, error) {
	e := envconf.New(lookup)
	c.readEnv(e)
	c = c.withDefaults(e)
	return c, badConfiguration(e.Errs())
}

// readEnv overlays the variables on c.
func (c *Config) readEnv(e *envReader) {
	e.Addr("PLINTH_ADDR", &c.Addr)
	e.Duration("PLINTH_HEADER_READ_TIMEOUT", &c.HeaderReadTimeout, envconf.ZeroOff)
	e.Duration("PLINTH_BODY_READ_TIMEOUT", &c.BodyReadTimeout, envconf.ZeroOff)
	e.Duration("PLINTH_IDLE_TIMEOUT", &c.IdleTimeout, envconf.ZeroRefused)
	e.Duration("PLINTH_DRAIN_DELAY", &c.DrainDelay, envconf.ZeroValue)
	e.Duration("PLINTH_SHUTDOWN_TIMEOUT", &c.ShutdownTimeout, envconf.ZeroRefused)
	e.Duration("PLINTH_READINESS_CACHE_TTL", &c.ReadinessCacheTTL, envconf.ZeroRefused)
	e.Size("PLINTH_MIN_BODY_RATE", &c.MinBodyRate, envconf.ZeroRefused)
	e.Size("PLINTH_MAX_BODY_BYTES", &c.MaxBodyBytes, envconf.ZeroOff)
	e.SizeInt("PLINTH_MAX_HEADER_BYTES", &c.MaxHeaderBytes, envconf.ZeroRefused)
	e.Int("PLINTH_MAX_CONNECTIONS", &c.MaxConnections, envconf.ZeroOff)
	e.Int("PLINTH_REUSE_PORT", &c.ReusePort, envconf.ZeroValue)
	e.String("PLINTH_LIVENESS_PATH", &c.LivenessPath)
	e.String("PLINTH_READINESS_PATH", &c.ReadinessPath)
	e.Bool("PLINTH_READINESS_JSON", &c.ReadinessJSON)
	e.String("PLINTH_TLS_CERT_FILE", &c.TLSCertFile)
	e.String("PLINTH_TLS_KEY_FILE", &c.TLSKeyFile)
	e.Bool("PLINTH_H2C", &c.H2C)
	e.String("PLINTH_UPGRADE", &c.Upgrade)
	e.Duration("PLINTH_UPGRADE_TIMEOUT", &c.UpgradeTimeout, envconf.ZeroRefused)
	e.String("PLINTH_PID_FILE", &c.PIDFile)
	e.String("PLINTH_ENGINE", &c.Engine)
}

// withDefaults fills zero fields with the defaults, turns negative values
// of the fields that can be off into Off and checks the result, adding to
// e's errors.
func (c Config) withDefaults(e *envReader) Config {
	c.fillDefaults(e)
	c.check(e)
	return c
}

// fillDefaults gives every field its one meaning: zero is the default, a
// negative value is Off where the field can be off (and an error where it
// cannot). Applied to its own result it changes nothing.
func (c *Config) fillDefaults(e *envReader) {
	offable := func(d *time.Duration, v time.Duration) {
		switch {
		case *d == 0:
			*d = v
		case *d < 0:
			*d = Off
		}
	}
	required := func(field string, d *time.Duration, v time.Duration) {
		switch {
		case *d == 0:
			*d = v
		case *d < 0:
			e.Failf("Config.%s %v: this setting cannot be switched off (0 means the default, %v)", field, *d, v)
		}
	}
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	offable(&c.HeaderReadTimeout, DefaultHeaderReadTimeout)
	offable(&c.BodyReadTimeout, DefaultBodyReadTimeout)
	required("IdleTimeout", &c.IdleTimeout, DefaultIdleTimeout)
	required("ShutdownTimeout", &c.ShutdownTimeout, DefaultShutdownTimeout)
	required("ReadinessCacheTTL", &c.ReadinessCacheTTL, DefaultReadinessCacheTTL)
	required("UpgradeTimeout", &c.UpgradeTimeout, DefaultUpgradeTimeout)
	c.DrainDelay = max(c.DrainDelay, 0) // Off and the default are the same: no delay
	switch {
	case c.MinBodyRate == 0:
		c.MinBodyRate = DefaultMinBodyRate
	case c.MinBodyRate < 0:
		e.Failf("Config.MinBodyRate %d: this setting cannot be switched off (0 means the default, %d; BodyReadTimeout: Off stops pacing body reads)", c.MinBodyRate, DefaultMinBodyRate)
	}
	switch {
	case c.MaxHeaderBytes == 0:
		c.MaxHeaderBytes = DefaultMaxHeaderBytes
	case c.MaxHeaderBytes < 0:
		e.Failf("Config.MaxHeaderBytes %d: this setting cannot be switched off (0 means the default, %d)", c.MaxHeaderBytes, DefaultMaxHeaderBytes)
	}
	switch {
	case c.MaxBodyBytes == 0:
		c.MaxBodyBytes = DefaultMaxBodyBytes
	case c.MaxBodyBytes < 0:
		c.MaxBodyBytes = Off
	}
	switch {
	case c.MaxConnections == 0:
		c.MaxConnections = DefaultMaxConnections
	case c.MaxConnections < 0:
		c.MaxConnections = Off
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
	if c.MaxHeaderBytes > 0 && c.MaxHeaderBytes <= headerSlack {
		e.Failf("PLINTH_MAX_HEADER_BYTES (MaxHeaderBytes) %d: must be more than %d bytes (net/http reads %d bytes past its own limit, which Plinth lowers by as much)",
			c.MaxHeaderBytes, headerSlack, headerSlack)
	}
	for _, probe := range [...]struct{ name, path string }{
		{"PLINTH_LIVENESS_PATH (LivenessPath)", c.LivenessPath},
		{"PLINTH_READINESS_PATH (ReadinessPath)", c.ReadinessPath},
	} {
		if p := probe.path; p != "-" && (!strings.HasPrefix(p, "/") || cleanPath(p) != p) {
			e.Failf("%s=%q must be a clean absolute path, or \"-\" to switch the probe off", probe.name, p)
		}
	}
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		e.Failf("set both PLINTH_TLS_CERT_FILE and PLINTH_TLS_KEY_FILE (TLSCertFile, TLSKeyFile), or neither")
	}
	switch c.Engine {
	case "", EngineStd, EngineFast:
	default:
		e.Failf("PLINTH_ENGINE (Engine)=%q: want %q (net/http, the default) or %q (Plinth's engine)", c.Engine, EngineStd, EngineFast)
	}
	if c.ReusePort < 0 {
		e.Failf("PLINTH_REUSE_PORT (ReusePort) %d is negative", c.ReusePort)
	}
	if u := c.Upgrade; u != "" && u != "on" && u != "off" {
		e.Failf("PLINTH_UPGRADE (Upgrade)=%q: must be \"on\", \"off\" or empty (on when standard input is not a terminal)", u)
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
	envNames       []string // the PLINTH_* variables read to make these
}

// readSettings resolves the App's settings, adding bad values to e's errors.
func (a *App) readSettings(e *envReader) settings {
	var s settings
	timeout := a.HandlerTimeout
	e.Duration("PLINTH_HANDLER_TIMEOUT", &timeout, envconf.ZeroOff)
	switch {
	case timeout == 0:
		s.handlerTimeout = DefaultHandlerTimeout
	case timeout > 0:
		s.handlerTimeout = timeout
	}
	s.trusted = make(trustedProxies, 0, len(a.TrustedProxies))
	for _, p := range a.TrustedProxies {
		if !p.IsValid() {
			e.Failf("App.TrustedProxies holds an invalid prefix")
			continue
		}
		s.trusted = append(s.trusted, unmapPrefix(p))
	}
	if v, ok := e.Lookup("PLINTH_TRUSTED_PROXIES"); ok {
		tp, err := parseTrustedProxies(v)
		if err != nil {
			e.Failf("PLINTH_TRUSTED_PROXIES=%q: %v", v, err)
		}
		s.trusted = tp
	}
	fh := a.ForwardedHeader
	e.String("PLINTH_FORWARDED_HEADER", &fh)
	var err error
	if s.forwarded, err = parseForwardedHeader(fh); err != nil {
		e.Failf("PLINTH_FORWARDED_HEADER (App.ForwardedHeader)=%q: %v", fh, err)
	}
	if v, ok := e.Lookup("PLINTH_SKIP_MIDDLEWARE"); ok {
		if s.skip, err = parseLayerSet(v); err != nil {
			e.Failf("PLINTH_SKIP_MIDDLEWARE=%q: %v", v, err)
		}
	}
	return s
}

// resolve returns the server configuration and the App's settings from the
// App's fields and the environment, with every bad value in one error: the
// one place where the core reads its configuration. It also returns the
// names of the variables it read, for the check of misspelled ones.
func (a *App) resolve(lookup func(string) (string, bool)) (Config, settings, error) {
	e := envconf.New(lookup)
	cfg := a.Config
	cfg.readEnv(e)
	cfg = cfg.withDefaults(e)
	s := a.readSettings(e)
	s.envNames = e.Names()
	return cfg, s, badConfiguration(e.Errs())
}
