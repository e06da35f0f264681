package mail

import (
	"strings"
	"testing"
)

// TestOpenLogBody: log:?body= takes true or false, and the transport says
// which it is.
func TestOpenLogBody(t *testing.T) {
	for url, want := range map[string]string{"log:": "log:", "log:?body=false": "log:", "log:?body=true": "log:?body=true"} {
		m, err := Open(Config{URL: url, lookup: env()})
		if err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		l, ok := m.(*LogMailer)
		if !ok || l.String() != want || l.Body != (want != "log:") {
			t.Errorf("Open(%s) = %#v, want a LogMailer %s", url, m, want)
		}
	}
}

// TestOpenErrorsNameTheSource: an error names the variable when the value
// came from the environment, the field otherwise, and never holds the
// URL's password, even when the URL does not parse.
func TestOpenErrorsNameTheSource(t *testing.T) {
	for _, tc := range []struct {
		cfg       Config
		want, not string
	}{
		{Config{From: "not an address", lookup: env()}, "Config.From=", EnvFrom},
		{Config{From: "a@example.com", lookup: env(EnvFrom, "nope")}, EnvFrom + `="nope"`, "Config.From"},
		{Config{URL: "smtp://u:secret%zz@host", lookup: env()}, "Config.URL", "secret"},
		{Config{lookup: env(EnvURL, "smtp://u:secret%zz@host")}, EnvURL, "secret"},
		{Config{URL: "log:?body=1", lookup: env()}, `Config.URL="log:?body=1": body is true or false`, EnvURL},
	} {
		_, err := Open(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), tc.not) {
			t.Errorf("Open(%+v) = %v, want an error saying %q, not %q", tc.cfg, err, tc.want, tc.not)
		}
	}
	// The hint names the SMTP module for smtp and smtps only.
	for url, hint := range map[string]bool{"smtp://h": true, "smtps://h:465": true, "lmtp://h": false} {
		_, err := Open(Config{URL: url, lookup: env()})
		if err == nil || strings.Contains(err.Error(), "smtpmail.Openers()") != hint || !strings.Contains(err.Error(), "known: log, memory") {
			t.Errorf("Open(%s) = %v, want the SMTP module named: %v", url, err, hint)
		}
	}
	if got := Redact("://u:se cret%@h"); strings.Contains(got, "cret") {
		t.Errorf("Redact of a URL without a scheme: %q", got)
	}
}
