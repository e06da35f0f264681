package apptest

import (
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
)

// PLINTH_* variables configure an App; t.Setenv sets one for a test and
// restores it afterwards (such a test cannot be parallel). ResolveConfig
// gives the server configuration that Run and Serve would use.
func TestConfigFromEnvironment(t *testing.T) {
	t.Setenv("PLINTH_MAX_BODY_BYTES", "1024")
	cfg, err := plinth.ResolveConfig(plinth.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxBodyBytes != 1024 {
		t.Errorf("MaxBodyBytes %d, want 1024", cfg.MaxBodyBytes)
	}

	t.Setenv("PLINTH_SHUTDOWN_TIMEOUT", "soon")
	if _, err := plinth.ResolveConfig(plinth.Config{}); err == nil || !strings.Contains(err.Error(), "PLINTH_SHUTDOWN_TIMEOUT") {
		t.Errorf("error %v, want one naming PLINTH_SHUTDOWN_TIMEOUT", err)
	}
}

// The variables the App reads when it is built (those that override App
// fields, such as PLINTH_TRUSTED_PROXIES, and PLINTH_SKIP_MIDDLEWARE) apply
// to ServeHTTP too, if they are set before the App's first request.
func TestBehindProxy(t *testing.T) {
	t.Setenv("PLINTH_TRUSTED_PROXIES", "192.0.2.0/24") // httptest.NewRequest's peer is 192.0.2.1
	client(t).Get("/whoami", "X-Forwarded-For", "203.0.113.7").Status(200).Contains("203.0.113.7")
}
