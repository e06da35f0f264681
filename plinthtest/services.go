package plinthtest

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The variables that give tests their services. A test that needs
// PostgreSQL or Redis reads its URL with PostgresURL or RedisURL; unset,
// the test skips and says which variable to set, so that `go test ./...`
// passes on a machine without the services.
const (
	// PostgresEnv names a PostgreSQL server URL, such as
	// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable.
	PostgresEnv = "PLINTH_TEST_POSTGRES"
	// RedisEnv names a Redis URL, such as redis://127.0.0.1:6379/0.
	RedisEnv = "PLINTH_TEST_REDIS"
	// RequireEnv turns the skips of a missing service into failures, for
	// CI: a comma-separated list of service names (postgres, redis) or
	// "all". Unset, the default, a test whose service is missing skips. A
	// name it does not know fails the test that reads it, so that a
	// misspelling does not pass unnoticed.
	RequireEnv = "PLINTH_TEST_REQUIRE"
)

// services maps each service RequireEnv knows to the variable holding its
// URL.
var services = map[string]string{"postgres": PostgresEnv, "redis": RedisEnv}

// PostgresURL returns the URL in PostgresEnv, or ends t when it is unset:
// a skip that names the variable, or a failure when RequireEnv names
// postgres (see Missing).
func PostgresURL(t testing.TB) string {
	t.Helper()
	return serviceURL(t, "postgres", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
}

// RedisURL returns the URL in RedisEnv, or ends t when it is unset, as
// PostgresURL does.
func RedisURL(t testing.TB) string {
	t.Helper()
	return serviceURL(t, "redis", "redis://127.0.0.1:6379/0")
}

func serviceURL(t testing.TB, service, example string) string {
	t.Helper()
	env := services[service]
	u := os.Getenv(env)
	if u == "" {
		Missing(t, service, fmt.Sprintf("set %s to a URL such as %s to run this test", env, example))
	}
	return u
}

// Required reports whether RequireEnv names service (or "all"), and
// returns an error when it names a service it does not know.
func Required(service string) (bool, error) {
	required := false
	for name := range strings.SplitSeq(os.Getenv(RequireEnv), ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		switch {
		case name == "":
		case name == "all" || name == service:
			required = true
		case services[name] == "":
			known := make([]string, 0, len(services))
			for s := range services {
				known = append(known, s)
			}
			slices.Sort(known)
			return false, fmt.Errorf("%s=%q names %q: the services are %s, or all", RequireEnv, os.Getenv(RequireEnv), name, strings.Join(known, ", "))
		}
	}
	return required, nil
}

// Missing ends t because service ("postgres", "redis") is not available:
// t.Fatal when RequireEnv names it (or names a service it does not know),
// else t.Skip with reason, which should say how to make the service
// available. The first Missing or Without of each service in a test binary
// also writes reason to stderr: `go test` run in a package's directory
// shows it without -v (in package-list mode, `go test ./...`, the go
// command hides a passing package's output, which is what RequireEnv is
// for).
func Missing(t testing.TB, service, reason string) {
	t.Helper()
	absent(t, service, reason)
	t.Skip(reason)
}

// Without is Missing for a test that carries on without the service (the
// SQLite half of a test over two engines): it fails t when RequireEnv names
// the service, else notes reason (stderr once, t.Log always) and returns.
func Without(t testing.TB, service, reason string) {
	t.Helper()
	absent(t, service, reason)
	t.Log(reason)
}

// noted holds the services whose absence this test binary has reported.
var noted sync.Map

func absent(t testing.TB, service, reason string) {
	t.Helper()
	required, err := Required(service)
	switch {
	case err != nil:
		t.Fatalf("%v", err)
	case required:
		t.Fatalf("%s (%s names %s: a missing %s is a failure)", reason, RequireEnv, service, service)
	}
	if _, seen := noted.LoadOrStore(service, true); !seen {
		fmt.Fprintf(os.Stderr, "%s: tests skipped in this package: %s (%s=%s makes it a failure)\n", service, reason, RequireEnv, service)
	}
}
