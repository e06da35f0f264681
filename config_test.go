package plinth

import (
	"os"
	"strings"
	"testing"
	"time"
)

// envOf returns a lookup function over m, standing in for os.LookupEnv.
func envOf(m map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

// defaultConfig is the documented resolution of the zero Config.
var defaultConfig = Config{
	Addr:              ":8080",
	HeaderReadTimeout: 10 * time.Second,
	BodyReadTimeout:   10 * time.Second,
	MinBodyRate:       1024,
	IdleTimeout:       120 * time.Second,
	MaxHeaderBytes:    64 << 10,
	MaxBodyBytes:      2 << 20,
	MaxConnections:    10000,
	ShutdownTimeout:   30 * time.Second,
	LivenessPath:      "/livez",
	ReadinessPath:     "/readyz",
	ReadinessCacheTTL: time.Second,
}

func TestConfigDefaults(t *testing.T) {
	got, err := Config{}.withEnv(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got != defaultConfig {
		t.Errorf("zero Config resolved to\n%+v\nwant\n%+v", got, defaultConfig)
	}
	// Empty or blank variables count as unset.
	blank := map[string]string{"PLINTH_ADDR": "", "PLINTH_HEADER_READ_TIMEOUT": "  ", "PLINTH_H2C": ""}
	got, err = Config{}.withEnv(envOf(blank))
	if err != nil || got != defaultConfig {
		t.Errorf("blank variables: got %+v, %v; want the defaults", got, err)
	}
}

func TestConfigCodeValues(t *testing.T) {
	// Values set in code are kept; negative values switch off what can be
	// switched off and come back as 0.
	in := Config{
		Addr:              "127.0.0.1:1",
		HeaderReadTimeout: -1,
		BodyReadTimeout:   -1,
		MinBodyRate:       10,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    8192,
		MaxBodyBytes:      -1,
		MaxConnections:    -1,
		DrainDelay:        -1,
		ShutdownTimeout:   time.Second,
		LivenessPath:      "-",
		ReadinessPath:     "/health/ready",
		ReadinessCacheTTL: 5 * time.Second,
		H2C:               true,
		ReusePort:         3,
	}
	got, err := in.withEnv(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := in
	want.HeaderReadTimeout, want.BodyReadTimeout, want.MaxBodyBytes, want.MaxConnections, want.DrainDelay = 0, 0, 0, 0, 0
	if got != want {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}

	for _, tc := range []struct {
		name string
		c    Config
		want string
	}{
		{"relative probe path", Config{LivenessPath: "livez"}, "LivenessPath"},
		{"unclean probe path", Config{ReadinessPath: "/a/../readyz"}, "ReadinessPath"},
		{"cert without key", Config{TLSCertFile: "cert.pem"}, "TLS"},
		{"key without cert", Config{TLSKeyFile: "key.pem"}, "TLS"},
		{"negative ReusePort", Config{ReusePort: -2}, "ReusePort"},
	} {
		if _, err := tc.c.withEnv(envOf(nil)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %s", tc.name, err, tc.want)
		}
	}
}

func TestConfigEnvironment(t *testing.T) {
	for _, tc := range []struct {
		env   map[string]string
		in    Config // configuration set in code, under the environment
		check func(Config) bool
	}{
		{map[string]string{"PLINTH_ADDR": " 127.0.0.1:9000 "}, Config{}, func(c Config) bool { return c.Addr == "127.0.0.1:9000" }},
		{map[string]string{"PLINTH_HEADER_READ_TIMEOUT": "2s"}, Config{}, func(c Config) bool { return c.HeaderReadTimeout == 2*time.Second }},
		{map[string]string{"PLINTH_HEADER_READ_TIMEOUT": "2s"}, Config{HeaderReadTimeout: 5 * time.Second}, func(c Config) bool { return c.HeaderReadTimeout == 2*time.Second }},
		{map[string]string{"PLINTH_HEADER_READ_TIMEOUT": "0"}, Config{}, func(c Config) bool { return c.HeaderReadTimeout == 0 }},
		{map[string]string{"PLINTH_HEADER_READ_TIMEOUT": "0s"}, Config{HeaderReadTimeout: 5 * time.Second}, func(c Config) bool { return c.HeaderReadTimeout == 0 }},
		{map[string]string{"PLINTH_BODY_READ_TIMEOUT": "500ms"}, Config{}, func(c Config) bool { return c.BodyReadTimeout == 500*time.Millisecond }},
		{map[string]string{"PLINTH_BODY_READ_TIMEOUT": "0"}, Config{}, func(c Config) bool { return c.BodyReadTimeout == 0 }},
		{map[string]string{"PLINTH_MIN_BODY_RATE": "4096"}, Config{}, func(c Config) bool { return c.MinBodyRate == 4096 }},
		{map[string]string{"PLINTH_IDLE_TIMEOUT": "1m30s"}, Config{}, func(c Config) bool { return c.IdleTimeout == 90*time.Second }},
		{map[string]string{"PLINTH_MAX_HEADER_BYTES": "8192"}, Config{}, func(c Config) bool { return c.MaxHeaderBytes == 8192 }},
		{map[string]string{"PLINTH_MAX_BODY_BYTES": "1048576"}, Config{}, func(c Config) bool { return c.MaxBodyBytes == 1<<20 }},
		{map[string]string{"PLINTH_MAX_BODY_BYTES": "0"}, Config{MaxBodyBytes: 10}, func(c Config) bool { return c.MaxBodyBytes == 0 }},
		{map[string]string{"PLINTH_MAX_CONNECTIONS": "50"}, Config{}, func(c Config) bool { return c.MaxConnections == 50 }},
		{map[string]string{"PLINTH_MAX_CONNECTIONS": "0"}, Config{}, func(c Config) bool { return c.MaxConnections == 0 }},
		{map[string]string{"PLINTH_DRAIN_DELAY": "3s"}, Config{}, func(c Config) bool { return c.DrainDelay == 3*time.Second }},
		{map[string]string{"PLINTH_DRAIN_DELAY": "0"}, Config{DrainDelay: time.Second}, func(c Config) bool { return c.DrainDelay == 0 }},
		{map[string]string{"PLINTH_SHUTDOWN_TIMEOUT": "45s"}, Config{}, func(c Config) bool { return c.ShutdownTimeout == 45*time.Second }},
		{map[string]string{"PLINTH_LIVENESS_PATH": "/healthz"}, Config{}, func(c Config) bool { return c.LivenessPath == "/healthz" }},
		{map[string]string{"PLINTH_READINESS_PATH": "-"}, Config{}, func(c Config) bool { return c.ReadinessPath == "-" }},
		{map[string]string{"PLINTH_READINESS_CACHE_TTL": "250ms"}, Config{}, func(c Config) bool { return c.ReadinessCacheTTL == 250*time.Millisecond }},
		{map[string]string{"PLINTH_TLS_CERT_FILE": "c.pem", "PLINTH_TLS_KEY_FILE": "k.pem"}, Config{}, func(c Config) bool { return c.TLSCertFile == "c.pem" && c.TLSKeyFile == "k.pem" }},
		{map[string]string{"PLINTH_H2C": "true"}, Config{}, func(c Config) bool { return c.H2C }},
		{map[string]string{"PLINTH_H2C": "0"}, Config{H2C: true}, func(c Config) bool { return !c.H2C }},
		{map[string]string{"PLINTH_REUSE_PORT": "4"}, Config{}, func(c Config) bool { return c.ReusePort == 4 }},
	} {
		got, err := tc.in.withEnv(envOf(tc.env))
		if err != nil {
			t.Errorf("%v over %+v: %v", tc.env, tc.in, err)
			continue
		}
		if !tc.check(got) {
			t.Errorf("%v over %+v: resolved to %+v", tc.env, tc.in, got)
		}
	}
}

func TestConfigBadEnvironment(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		name string // the variable the error must name
	}{
		{map[string]string{"PLINTH_HEADER_READ_TIMEOUT": "abc"}, "PLINTH_HEADER_READ_TIMEOUT"},
		{map[string]string{"PLINTH_HEADER_READ_TIMEOUT": "10"}, "PLINTH_HEADER_READ_TIMEOUT"}, // no unit
		{map[string]string{"PLINTH_BODY_READ_TIMEOUT": "-1s"}, "PLINTH_BODY_READ_TIMEOUT"},
		{map[string]string{"PLINTH_IDLE_TIMEOUT": "forever"}, "PLINTH_IDLE_TIMEOUT"},
		{map[string]string{"PLINTH_DRAIN_DELAY": "soon"}, "PLINTH_DRAIN_DELAY"},
		{map[string]string{"PLINTH_SHUTDOWN_TIMEOUT": "30"}, "PLINTH_SHUTDOWN_TIMEOUT"},
		{map[string]string{"PLINTH_READINESS_CACHE_TTL": "1x"}, "PLINTH_READINESS_CACHE_TTL"},
		{map[string]string{"PLINTH_MAX_CONNECTIONS": "-3"}, "PLINTH_MAX_CONNECTIONS"},
		{map[string]string{"PLINTH_MAX_CONNECTIONS": "lots"}, "PLINTH_MAX_CONNECTIONS"},
		{map[string]string{"PLINTH_MAX_HEADER_BYTES": "0"}, "PLINTH_MAX_HEADER_BYTES"},
		{map[string]string{"PLINTH_MAX_BODY_BYTES": "2MB"}, "PLINTH_MAX_BODY_BYTES"},
		{map[string]string{"PLINTH_MIN_BODY_RATE": "0"}, "PLINTH_MIN_BODY_RATE"},
		{map[string]string{"PLINTH_REUSE_PORT": "-2"}, "PLINTH_REUSE_PORT"},
		{map[string]string{"PLINTH_H2C": "maybe"}, "PLINTH_H2C"},
		{map[string]string{"PLINTH_IDLE_TIMEOUT": "0"}, "PLINTH_IDLE_TIMEOUT"}, // cannot be switched off
		{map[string]string{"PLINTH_SHUTDOWN_TIMEOUT": "0s"}, "PLINTH_SHUTDOWN_TIMEOUT"},
		{map[string]string{"PLINTH_TLS_CERT_FILE": "cert.pem"}, "PLINTH_TLS_KEY_FILE"},
		{map[string]string{"PLINTH_TLS_KEY_FILE": "key.pem"}, "PLINTH_TLS_CERT_FILE"},
		{map[string]string{"PLINTH_LIVENESS_PATH": "livez"}, "PLINTH_LIVENESS_PATH"},
		{map[string]string{"PLINTH_READINESS_PATH": "/a/../readyz"}, "PLINTH_READINESS_PATH"},
	} {
		_, err := Config{}.withEnv(envOf(tc.env))
		if err == nil {
			t.Errorf("%v: no error", tc.env)
			continue
		}
		if !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%v: error %q does not name %s", tc.env, err, tc.name)
		}
	}

	// "0" is a valid drain delay (the default) and a valid listener count.
	if c, err := (Config{}).withEnv(envOf(map[string]string{"PLINTH_DRAIN_DELAY": "0", "PLINTH_REUSE_PORT": "0"})); err != nil || c.DrainDelay != 0 || c.ReusePort != 0 {
		t.Errorf("PLINTH_DRAIN_DELAY=0, PLINTH_REUSE_PORT=0: %+v, %v", c, err)
	}
	if _, err := listen(Config{Addr: "127.0.0.1:0", ReusePort: 2}); err == nil || !strings.Contains(err.Error(), "PLINTH_REUSE_PORT") {
		t.Errorf("ReusePort 2 on port 0: %v, want an error naming PLINTH_REUSE_PORT", err)
	}

	// Several bad values are reported together.
	_, err := Config{}.withEnv(envOf(map[string]string{"PLINTH_IDLE_TIMEOUT": "x", "PLINTH_MAX_CONNECTIONS": "y"}))
	if err == nil || !strings.Contains(err.Error(), "PLINTH_IDLE_TIMEOUT") || !strings.Contains(err.Error(), "PLINTH_MAX_CONNECTIONS") {
		t.Errorf("two bad values: %v, want both named", err)
	}
}

func TestResolveConfigReadsTheEnvironment(t *testing.T) {
	t.Setenv("PLINTH_ADDR", "127.0.0.1:9999")
	t.Setenv("PLINTH_MAX_CONNECTIONS", "7")
	c, err := ResolveConfig(Config{Addr: ":1", MaxConnections: 3})
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:9999" || c.MaxConnections != 7 || c.HeaderReadTimeout != DefaultHeaderReadTimeout {
		t.Errorf("ResolveConfig = %+v", c)
	}
	t.Setenv("PLINTH_HEADER_READ_TIMEOUT", "abc")
	if _, err := ResolveConfig(Config{}); err == nil || !strings.Contains(err.Error(), "PLINTH_HEADER_READ_TIMEOUT") {
		t.Errorf("bad variable: %v", err)
	}
}

// TestServeReportsEveryBadVariable (issue 10.10): bad values of the App's
// own variables (read at Build) are reported by Serve as one error with the
// server's, each named, instead of panicking.
func TestServeReportsEveryBadVariable(t *testing.T) {
	t.Setenv("PLINTH_HANDLER_TIMEOUT", "soon")
	t.Setenv("PLINTH_TRUSTED_PROXIES", "10.0.0.0/8, not-a-prefix")
	t.Setenv("PLINTH_SKIP_MIDDLEWARE", "recover,everything")
	t.Setenv("PLINTH_FORWARDED_HEADER", "X-Real-IP")
	t.Setenv("PLINTH_IDLE_TIMEOUT", "x")
	app := New()
	app.Config = testConfig()
	app.Get("/", hello)
	ln := listenLocal(t)
	defer ln.Close()
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("Serve panicked: %v", p)
			}
		}()
		err = app.Serve(t.Context(), ln)
	}()
	if err == nil {
		t.Fatal("Serve accepted bad variables")
	}
	for _, name := range []string{"PLINTH_HANDLER_TIMEOUT", "PLINTH_TRUSTED_PROXIES", "PLINTH_SKIP_MIDDLEWARE",
		"PLINTH_FORWARDED_HEADER", "PLINTH_IDLE_TIMEOUT"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("the error does not name %s:\n%v", name, err)
		}
	}
	// Good values are used.
	for k, v := range map[string]string{"PLINTH_HANDLER_TIMEOUT": "0", "PLINTH_TRUSTED_PROXIES": "10.0.0.0/8",
		"PLINTH_SKIP_MIDDLEWARE": "security", "PLINTH_FORWARDED_HEADER": "forwarded", "PLINTH_IDLE_TIMEOUT": "1m"} {
		t.Setenv(k, v)
	}
	_, s, err := New().resolve(os.LookupEnv)
	if err != nil || s.handlerTimeout != 0 || len(s.trusted) != 1 || !s.skip.security || s.forwarded != forwarded {
		t.Errorf("good values: %+v, %v", s, err)
	}
}
