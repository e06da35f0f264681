package plinth

import (
	"bytes"
	"context"
	"log/slog"
	"net/netip"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth/internal/syncbuf"
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
	UpgradeTimeout:    30 * time.Second,
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
	// switched off and come back as Off (DrainDelay's off is its default, 0).
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
		Upgrade:           "off",
		UpgradeTimeout:    time.Second,
		PIDFile:           "/run/app.pid",
	}
	got, err := in.withEnv(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := in
	want.HeaderReadTimeout, want.BodyReadTimeout, want.MaxBodyBytes, want.MaxConnections, want.DrainDelay = Off, Off, Off, Off, 0
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
		{map[string]string{"PLINTH_HEADER_READ_TIMEOUT": "0"}, Config{}, func(c Config) bool { return c.HeaderReadTimeout == Off }},
		{map[string]string{"PLINTH_HEADER_READ_TIMEOUT": "0s"}, Config{HeaderReadTimeout: 5 * time.Second}, func(c Config) bool { return c.HeaderReadTimeout == Off }},
		{map[string]string{"PLINTH_BODY_READ_TIMEOUT": "500ms"}, Config{}, func(c Config) bool { return c.BodyReadTimeout == 500*time.Millisecond }},
		{map[string]string{"PLINTH_BODY_READ_TIMEOUT": "0"}, Config{}, func(c Config) bool { return c.BodyReadTimeout == Off }},
		{map[string]string{"PLINTH_MIN_BODY_RATE": "4096"}, Config{}, func(c Config) bool { return c.MinBodyRate == 4096 }},
		{map[string]string{"PLINTH_IDLE_TIMEOUT": "1m30s"}, Config{}, func(c Config) bool { return c.IdleTimeout == 90*time.Second }},
		{map[string]string{"PLINTH_MAX_HEADER_BYTES": "8192"}, Config{}, func(c Config) bool { return c.MaxHeaderBytes == 8192 }},
		{map[string]string{"PLINTH_MAX_BODY_BYTES": "1048576"}, Config{}, func(c Config) bool { return c.MaxBodyBytes == 1<<20 }},
		{map[string]string{"PLINTH_MAX_BODY_BYTES": "0"}, Config{MaxBodyBytes: 10}, func(c Config) bool { return c.MaxBodyBytes == Off }},
		{map[string]string{"PLINTH_MAX_CONNECTIONS": "50"}, Config{}, func(c Config) bool { return c.MaxConnections == 50 }},
		{map[string]string{"PLINTH_MAX_CONNECTIONS": "0"}, Config{}, func(c Config) bool { return c.MaxConnections == Off }},
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

// TestServeReportsEveryBadVariable: bad values of the App's
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

// TestConfigResolvesToItself: every field of Config has one
// meaning per value, and a resolved Config resolves to itself, so that
// ResolveConfig can be applied any number of times. A row per field: a new
// field without one fails the test.
func TestConfigResolvesToItself(t *testing.T) {
	type step struct {
		in, want any // want nil: the value is refused, with an error naming the field
	}
	logger := quietLogger()
	rows := map[string][]step{
		"Addr":              {{"", DefaultAddr}, {"127.0.0.1:1", "127.0.0.1:1"}},
		"HeaderReadTimeout": {{0, DefaultHeaderReadTimeout}, {Off, Off}, {-5 * time.Second, Off}, {2 * time.Second, 2 * time.Second}},
		"BodyReadTimeout":   {{0, DefaultBodyReadTimeout}, {Off, Off}, {-time.Nanosecond * 7, Off}, {time.Second, time.Second}},
		"MinBodyRate":       {{0, DefaultMinBodyRate}, {10, 10}, {Off, nil}},
		"IdleTimeout":       {{0, DefaultIdleTimeout}, {time.Minute, time.Minute}, {Off, nil}},
		"MaxHeaderBytes":    {{0, DefaultMaxHeaderBytes}, {8192, 8192}, {Off, nil}, {4096, nil}},
		"MaxBodyBytes":      {{0, DefaultMaxBodyBytes}, {Off, Off}, {-7, Off}, {10, 10}},
		"MaxConnections":    {{0, DefaultMaxConnections}, {Off, Off}, {-2, Off}, {5, 5}},
		"DrainDelay":        {{0, 0}, {Off, 0}, {3 * time.Second, 3 * time.Second}},
		"ShutdownTimeout":   {{0, DefaultShutdownTimeout}, {time.Second, time.Second}, {Off, nil}},
		"LivenessPath":      {{"", "/livez"}, {"-", "-"}, {"/healthz", "/healthz"}, {"healthz", nil}},
		"ReadinessPath":     {{"", "/readyz"}, {"-", "-"}, {"/a/../readyz", nil}},
		"ReadinessCacheTTL": {{0, DefaultReadinessCacheTTL}, {5 * time.Second, 5 * time.Second}, {Off, nil}},
		"TLSCertFile":       {{"", ""}, {"cert.pem", nil}}, // alone: needs TLSKeyFile
		"TLSKeyFile":        {{"", ""}, {"key.pem", nil}},
		"H2C":               {{false, false}, {true, true}},
		"ReadinessJSON":     {{false, false}, {true, true}},
		"Engine":            {{"", ""}, {"std", "std"}, {"fast", "fast"}, {"turbo", nil}},
		"ReusePort":         {{0, 0}, {3, 3}, {Off, nil}},
		"Upgrade":           {{"", ""}, {"on", "on"}, {"off", "off"}, {"yes", nil}},
		"UpgradeTimeout":    {{0, DefaultUpgradeTimeout}, {time.Second, time.Second}, {Off, nil}},
		"PIDFile":           {{"", ""}, {"/run/app.pid", "/run/app.pid"}},
		"Logger":            {{(*slog.Logger)(nil), (*slog.Logger)(nil)}, {logger, logger}},
	}
	typ := reflect.TypeFor[Config]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		steps, ok := rows[f.Name]
		if !ok {
			t.Errorf("Config.%s has no row: say what each of its values resolves to", f.Name)
			continue
		}
		delete(rows, f.Name)
		for _, st := range steps {
			var c Config
			reflect.ValueOf(&c).Elem().Field(i).Set(reflect.ValueOf(st.in).Convert(f.Type))
			got, err := c.withEnv(envOf(nil))
			if st.want == nil {
				if err == nil || !strings.Contains(err.Error(), f.Name) {
					t.Errorf("%s: %v: error %v, want one naming the field", f.Name, st.in, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v: %v", f.Name, st.in, err)
				continue
			}
			if v := reflect.ValueOf(got).Field(i).Interface(); v != reflect.ValueOf(st.want).Convert(f.Type).Interface() {
				t.Errorf("%s: %v resolved to %v, want %v", f.Name, st.in, v, st.want)
			}
			for pass := 2; pass <= 3; pass++ {
				again, err := got.withEnv(envOf(nil))
				if err != nil || again != got {
					t.Errorf("%s: %v: pass %d gave\n%+v, %v\nafter\n%+v", f.Name, st.in, pass, again, err, got)
				}
				got = again
			}
		}
	}
	for name := range rows {
		t.Errorf("row %s names no field of Config", name)
	}
	// Both TLS files together are accepted.
	if c, err := (Config{TLSCertFile: "c.pem", TLSKeyFile: "k.pem"}).withEnv(envOf(nil)); err != nil || c.TLSCertFile != "c.pem" {
		t.Errorf("both TLS files: %+v, %v", c, err)
	}
}

// TestSetLimitsZeroIsTheDefault: SetBodyLimit and
// SetHandlerTimeout read 0 as Config does, the default (the enclosing
// group's), and Off as off.
func TestSetLimitsZeroIsTheDefault(t *testing.T) {
	app := New()
	outer := app.Group("/outer")
	outer.SetBodyLimit(100)
	outer.SetHandlerTimeout(time.Minute)
	zero := outer.Group("/zero")
	zero.SetBodyLimit(0)
	zero.SetHandlerTimeout(0)
	off := outer.Group("/off")
	off.SetBodyLimit(Off)
	off.SetHandlerTimeout(Off)
	if got := bodyLimitOf(zero); got != 100 {
		t.Errorf("SetBodyLimit(0) under a 100-byte group: limit %d, want the group's 100", got)
	}
	if got := bodyLimitOf(off); got >= 0 {
		t.Errorf("SetBodyLimit(Off): limit %d, want none (negative)", got)
	}
	if zero.handlerTimeout != 0 || off.handlerTimeout >= 0 {
		t.Errorf("SetHandlerTimeout(0) = %v (want 0: inherit), SetHandlerTimeout(Off) = %v (want negative: off)", zero.handlerTimeout, off.handlerTimeout)
	}
}

// coreVariables is every variable the core reads in resolve, with a good
// value, what it resolves to, and a bad value (or "" when every value is
// good).
var coreVariables = []struct {
	name, good string
	check      func(Config, settings) bool
	bad        string
}{
	{"PLINTH_ADDR", "127.0.0.1:9000", func(c Config, _ settings) bool { return c.Addr == "127.0.0.1:9000" }, "localhost"},
	{"PLINTH_HEADER_READ_TIMEOUT", "0", func(c Config, _ settings) bool { return c.HeaderReadTimeout == Off }, "10"},
	{"PLINTH_BODY_READ_TIMEOUT", "3s", func(c Config, _ settings) bool { return c.BodyReadTimeout == 3*time.Second }, "-1s"},
	{"PLINTH_IDLE_TIMEOUT", "1m", func(c Config, _ settings) bool { return c.IdleTimeout == time.Minute }, "0"},
	{"PLINTH_DRAIN_DELAY", "0", func(c Config, _ settings) bool { return c.DrainDelay == 0 }, "soon"},
	{"PLINTH_SHUTDOWN_TIMEOUT", "45s", func(c Config, _ settings) bool { return c.ShutdownTimeout == 45*time.Second }, "0"},
	{"PLINTH_READINESS_CACHE_TTL", "250ms", func(c Config, _ settings) bool { return c.ReadinessCacheTTL == 250*time.Millisecond }, "1x"},
	{"PLINTH_MIN_BODY_RATE", "4KiB", func(c Config, _ settings) bool { return c.MinBodyRate == 4096 }, "0"},
	{"PLINTH_MAX_BODY_BYTES", "2MiB", func(c Config, _ settings) bool { return c.MaxBodyBytes == 2<<20 }, "2MB"},
	{"PLINTH_MAX_HEADER_BYTES", "8192", func(c Config, _ settings) bool { return c.MaxHeaderBytes == 8192 }, "4096"},
	{"PLINTH_MAX_CONNECTIONS", "0", func(c Config, _ settings) bool { return c.MaxConnections == Off }, "-3"},
	{"PLINTH_REUSE_PORT", "0", func(c Config, _ settings) bool { return c.ReusePort == 0 }, "many"},
	{"PLINTH_LIVENESS_PATH", "-", func(c Config, _ settings) bool { return c.LivenessPath == "-" }, "livez"},
	{"PLINTH_READINESS_PATH", "/health", func(c Config, _ settings) bool { return c.ReadinessPath == "/health" }, "/a/../b"},
	{"PLINTH_TLS_CERT_FILE", "", nil, "cert.pem"}, // alone: needs the key
	{"PLINTH_TLS_KEY_FILE", "", nil, ""}, // its error is the same as the cert's: tested alone below
	{"PLINTH_H2C", "true", func(c Config, _ settings) bool { return c.H2C }, "maybe"},
	{"PLINTH_READINESS_JSON", "true", func(c Config, _ settings) bool { return c.ReadinessJSON }, "json"},
	{"PLINTH_UPGRADE", "off", func(c Config, _ settings) bool { return c.Upgrade == "off" }, "yes"},
	{"PLINTH_UPGRADE_TIMEOUT", "5s", func(c Config, _ settings) bool { return c.UpgradeTimeout == 5*time.Second }, "0"},
	{"PLINTH_PID_FILE", "/run/app.pid", func(c Config, _ settings) bool { return c.PIDFile == "/run/app.pid" }, ""},
	{"PLINTH_ENGINE", "fast", func(c Config, _ settings) bool { return c.Engine == EngineFast }, "quick"},
	{"PLINTH_HANDLER_TIMEOUT", "0", func(_ Config, s settings) bool { return s.handlerTimeout == 0 }, "soon"},
	{"PLINTH_TRUSTED_PROXIES", "10.0.0.0/8", func(_ Config, s settings) bool { return len(s.trusted) == 1 }, "10.0.0.0/8,nope"},
	{"PLINTH_FORWARDED_HEADER", "Forwarded", func(_ Config, s settings) bool { return s.forwarded == forwarded }, "X-Real-IP"},
	{"PLINTH_SKIP_MIDDLEWARE", "security", func(_ Config, s settings) bool { return s.skip.security }, "everything"},
}

// TestCoreVariables: the table holds every variable the core
// reads, each good value resolves as documented, and every bad value is
// named in the one error.
func TestCoreVariables(t *testing.T) {
	_, s, err := New().resolve(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	var inTable []string
	for _, v := range coreVariables {
		inTable = append(inTable, v.name)
	}
	if !slices.Equal(slices.Sorted(slices.Values(s.envNames)), slices.Sorted(slices.Values(inTable))) {
		t.Errorf("the core reads\n%v\nthe table has\n%v", s.envNames, inTable)
	}
	bad := map[string]string{}
	for _, v := range coreVariables {
		if v.bad != "" {
			bad[v.name] = v.bad
		}
		if v.check == nil {
			continue
		}
		c, s, err := New().resolve(envOf(map[string]string{v.name: v.good}))
		if err != nil || !v.check(c, s) {
			t.Errorf("%s=%q: %+v %+v, %v", v.name, v.good, c, s, err)
		}
	}
	_, _, err = New().resolve(envOf(bad))
	if err == nil {
		t.Fatal("no error for bad values")
	}
	msg := err.Error()
	if _, _, err := New().resolve(envOf(map[string]string{"PLINTH_TLS_KEY_FILE": "k.pem"})); err == nil || !strings.Contains(err.Error(), "PLINTH_TLS_CERT_FILE") {
		t.Errorf("PLINTH_TLS_KEY_FILE alone: %v", err)
	}
	if strings.Count(msg, "plinth: bad configuration") != 1 {
		t.Errorf("want one error, got:\n%s", msg)
	}
	for _, v := range coreVariables {
		if !strings.Contains(msg, v.name) && v.bad != "" {
			t.Errorf("the error does not name %s=%q:\n%s", v.name, v.bad, msg)
		}
	}
}

// TestUnknownVariablesWarned: a PLINTH_* variable nobody reads
// is logged at start with the nearest known name; variables the core, a
// module or the application reads are not, nor PLINTH_TEST_*.
func TestUnknownVariablesWarned(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	app := New()
	app.DeclareEnv("PLINTH_SHOP_CURRENCY")
	_, set, err := app.resolve(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	app.warnAtStart(log, set, []string{
		"HOME=/root", "PLINTH_ADDR=:1", "PLINTH_INSPECT=routes", "PLINTH_ENV=development",
		"PLINTH_TEST_POSTGRES=postgres://x", "PLINTH_SHOP_CURRENCY=EUR", "PLINTH_CSRF_KEYS=k",
		"PLINTH_MAX_BODY_BYTE=1", "PLINTH_HANDLER_TIMEUOT=1s", "PLINTH_COMPLETELY_ELSE=1",
	})
	out := buf.String()
	for _, want := range []string{
		"PLINTH_MAX_BODY_BYTE is not read", "did you mean PLINTH_MAX_BODY_BYTES?",
		"PLINTH_HANDLER_TIMEUOT is not read", "did you mean PLINTH_HANDLER_TIMEOUT?",
		"PLINTH_COMPLETELY_ELSE is not read", "App.DeclareEnv",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "level=WARN"); n != 3 {
		t.Errorf("%d warnings, want 3 (exempt: known, declared, PLINTH_TEST_*, other prefixes):\n%s", n, out)
	}
	for _, quiet := range []string{"PLINTH_ADDR ", "PLINTH_INSPECT ", "PLINTH_ENV ", "PLINTH_TEST_POSTGRES", "PLINTH_SHOP_CURRENCY ", "PLINTH_CSRF_KEYS", "HOME"} {
		if strings.Contains(out, quiet) {
			t.Errorf("%q was reported:\n%s", quiet, out)
		}
	}
}

// TestServeWarnsOnceAtStart: Serve logs the warning of a
// misspelled variable, once.
func TestServeWarnsOnceAtStart(t *testing.T) {
	t.Setenv("PLINTH_MAX_BODY_BYTE", "1")
	var buf syncbuf.Buffer
	app := New()
	app.Config = testConfig()
	app.Config.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	app.Get("/", hello)
	ctx, cancel := context.WithCancel(t.Context())
	app.OnStart(func(context.Context) error { cancel(); return nil })
	ln := listenLocal(t)
	if err := app.Serve(ctx, ln); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "did you mean PLINTH_MAX_BODY_BYTES?"); n != 1 {
		t.Errorf("%d warnings about PLINTH_MAX_BODY_BYTE, want 1:\n%s", n, buf.String())
	}
}

// TestTrustAllProxiesWarned: a trusted prefix of length 0
// (0.0.0.0/0, ::/0, ::ffff:0.0.0.0/96), from the environment or the App's
// field, is accepted but warned about at start; a narrower one is not.
func TestTrustAllProxiesWarned(t *testing.T) {
	for _, tc := range []struct {
		env   string
		field []netip.Prefix
		warn  bool
	}{
		{env: "0.0.0.0/0", warn: true},
		{env: "10.0.0.0/8, ::/0", warn: true},
		{env: "::ffff:0.0.0.0/96", warn: true},
		{field: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0")}, warn: true},
		{env: "10.0.0.0/8,127.0.0.1", warn: false},
		{field: []netip.Prefix{netip.MustParsePrefix("192.168.0.0/16")}, warn: false},
	} {
		var buf bytes.Buffer
		app := New()
		app.TrustedProxies = tc.field
		env := map[string]string{}
		if tc.env != "" {
			env["PLINTH_TRUSTED_PROXIES"] = tc.env
		}
		_, set, err := app.resolve(envOf(env))
		if err != nil {
			t.Fatal(err)
		}
		app.warnAtStart(slog.New(slog.NewTextHandler(&buf, nil)), set, nil)
		if got := strings.Contains(buf.String(), "every client is trusted"); got != tc.warn {
			t.Errorf("%q %v: warned %v, want %v:\n%s", tc.env, tc.field, got, tc.warn, buf.String())
		}
	}
}
