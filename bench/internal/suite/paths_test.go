package suite

import "testing"

func TestPathSyntax(t *testing.T) {
	for _, tt := range []struct{ in, req, mux, chi, echo string }{
		{"/", "/", "/{$}", "/", "/"},
		{"/users/:user", "/users/user", "/users/{user}", "/users/{user}", "/users/:user"},
		{"/repos/:owner/:repo/events", "/repos/owner/repo/events", "/repos/{owner}/{repo}/events",
			"/repos/{owner}/{repo}/events", "/repos/:owner/:repo/events"},
		{"/src/*filepath", "/src/filepath", "/src/{filepath...}", "/src/*", "/src/*"},
		{"/users/", "/users/", "/users/{$}", "/users/", "/users/"},
	} {
		if got := RequestPath(tt.in); got != tt.req {
			t.Errorf("RequestPath(%q) = %q, want %q", tt.in, got, tt.req)
		}
		if got := MuxPath(tt.in); got != tt.mux {
			t.Errorf("MuxPath(%q) = %q, want %q", tt.in, got, tt.mux)
		}
		if got := ChiPath(tt.in); got != tt.chi {
			t.Errorf("ChiPath(%q) = %q, want %q", tt.in, got, tt.chi)
		}
		if got := EchoPath(tt.in); got != tt.echo {
			t.Errorf("EchoPath(%q) = %q, want %q", tt.in, got, tt.echo)
		}
	}
}
