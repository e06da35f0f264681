package plinth

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// engineSuite names Plinth's own tests that serve over a real listener
// through App.Serve or App.Run: limits, slowloris, slow body, drain (exit
// within the grace period, Connection: close to requests in flight),
// probes, the startup line, start hooks, and the protocol tests (which, on
// the engine, assert that TLS and h2c are refused).
const engineSuite = `^(TestServer|TestRun|TestOnStart|TestAppReady|TestH2C|TestTLS|TestRapidReset|TestEngineProtocolsRefused)`

// TestServerTestsOnEngine runs engineSuite again in a child process with
// PLINTH_ENGINE=fast, so that every one of those tests, unchanged, also
// holds on Plinth's engine (the configuration resolves PLINTH_ENGINE for
// every App the tests serve).
func TestServerTestsOnEngine(t *testing.T) {
	if os.Getenv("PLINTH_ENGINE") != "" {
		t.Skip("already running on a chosen engine (PLINTH_ENGINE set)")
	}
	if testing.Short() {
		t.Skip("-short: the engine suite runs the server tests a second time")
	}
	t.Parallel()
	args := []string{"-test.run", engineSuite, "-test.count=1", "-test.timeout=5m"}
	if testing.Verbose() {
		args = append(args, "-test.v")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "PLINTH_ENGINE=fast")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("Plinth's server tests with PLINTH_ENGINE=fast failed (%v after %s):\n%s", err, time.Since(start).Round(time.Millisecond), tail(string(out), 8000))
	}
	if strings.Contains(string(out), "no tests to run") {
		t.Fatalf("the engine suite ran no test:\n%s", out)
	}
	t.Logf("Plinth's server tests on the engine: ok in %s", time.Since(start).Round(time.Millisecond))
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "...\n" + s[len(s)-n:]
}

// TestServerEngineFromEnv checks that PLINTH_ENGINE picks the engine of
// every App served in this process, which TestServerTestsOnEngine relies
// on: the startup line names it.
func TestServerEngineFromEnv(t *testing.T) {
	want := os.Getenv("PLINTH_ENGINE")
	if want == "" {
		want = EngineStd
	}
	app := New()
	s, logs := serveOn(t, "std", app) // "std" sets nothing: the environment decides
	mustGetRaw(t, s.addr, "/livez")
	if !strings.Contains(logs.String(), "engine="+want) {
		t.Errorf("PLINTH_ENGINE=%q: the startup line does not name engine=%s:\n%s", os.Getenv("PLINTH_ENGINE"), want, logs.String())
	}
}
