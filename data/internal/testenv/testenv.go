// Package testenv decides what a test does when a service it needs (a
// PostgreSQL server named by PLINTH_TEST_POSTGRES, say) is not configured:
// it skips, saying so once per test binary on stderr, or, when
// PLINTH_TEST_REQUIRE names the service, it fails. datatest and the data
// package's own tests use it.
package testenv

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// RequireEnv names the variable that turns the skips of a missing service
// into failures, for CI: a comma-separated list of the services that must
// be there (Services), or "all". Unset, the default, a test whose service
// is missing skips.
const RequireEnv = "PLINTH_TEST_REQUIRE"

// Services are the names RequireEnv knows; another name in it fails the
// test that reads it, so that a misspelling does not pass unnoticed.
var Services = []string{"postgres", "redis"}

// Required reports whether RequireEnv names service (or "all"), and
// returns an error for a name it does not know.
func Required(service string) (bool, error) {
	required := false
	for name := range strings.SplitSeq(os.Getenv(RequireEnv), ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		switch {
		case name == "":
		case name == "all" || name == service:
			required = true
		case !slices.Contains(Services, name):
			return false, fmt.Errorf("%s=%q names %q: the services are %s, or all", RequireEnv, os.Getenv(RequireEnv), name, strings.Join(Services, ", "))
		}
	}
	return required, nil
}

var (
	mu    sync.Mutex
	noted = map[string]bool{}
)

// Missing ends t because service is not configured: t.Fatal when
// RequireEnv names it (or names an unknown service), else t.Skip. reason
// says how to configure it ("set PLINTH_TEST_POSTGRES to a server URL ...
// to run this test"); the first skip or Without of each service in the test
// binary also writes it to stderr, which `go test` shows without -v when it
// runs in the package's directory (no package arguments) or when the
// package fails: in package-list mode (`go test ./...`) the go command
// hides a passing package's output, which is what RequireEnv is for.
func Missing(t testing.TB, service, reason string) {
	t.Helper()
	absent(t, service, reason)
	t.Skip(reason)
}

// Without is Missing for a test that carries on without the service (the
// SQLite half of a test over both engines): it fails t when RequireEnv
// names the service, else notes reason (stderr once, t.Log always) and
// returns.
func Without(t testing.TB, service, reason string) {
	t.Helper()
	absent(t, service, reason)
	t.Log(reason)
}

// absent fails t when RequireEnv names service (or an unknown service),
// else writes reason to stderr if it is the service's first.
func absent(t testing.TB, service, reason string) {
	t.Helper()
	required, err := Required(service)
	switch {
	case err != nil:
		t.Fatalf("%v", err)
	case required:
		t.Fatalf("%s (%s names %s: a missing %s is a failure)", reason, RequireEnv, service, service)
	}
	mu.Lock()
	first := !noted[service]
	noted[service] = true
	mu.Unlock()
	if first {
		fmt.Fprintf(os.Stderr, "%s: tests skipped in this package: %s (%s=%s makes it a failure)\n", service, reason, RequireEnv, service)
	}
}
