package mail

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"testing"
)

func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestOpen(t *testing.T) {
	var gotURL *url.URL
	fake := &Memory{}
	openers := map[string]Opener{"smtp": func(u *url.URL) (Mailer, error) {
		gotURL = u
		if u.Hostname() == "bad" {
			return nil, errors.New("refused")
		}
		return fake, nil
	}}
	cases := []struct {
		name    string
		cfg     Config
		want    string // the Mailer's type, or the error's text
		wantErr bool
	}{
		{"default is log", Config{lookup: env()}, "*mail.LogMailer", false},
		{"memory", Config{URL: "memory:", lookup: env()}, "*mail.Memory", false},
		{"env overrides the field", Config{URL: "memory:", lookup: env(EnvURL, "log:")}, "*mail.LogMailer", false},
		{"opener", Config{Openers: openers, lookup: env(EnvURL, "smtp://u:secret@host:587")}, "*mail.Memory", false},
		{"opener error redacts", Config{Openers: openers, lookup: env(EnvURL, "smtp://u:secret@bad:587")}, "PLINTH_MAIL_URL", true},
		{"smtp without the module", Config{lookup: env(EnvURL, "smtp://u:secret@host")}, "smtpmail.Openers()", true},
		{"unknown scheme", Config{URL: "carrier-pigeon://x", lookup: env()}, `Config.URL="carrier-pigeon://x": unknown scheme`, true},
		{"no scheme", Config{URL: "localhost:25", lookup: env()}, "", true},
		{"bad body flag", Config{URL: "log:?body=yes", lookup: env()}, "body is true or false", true},
		{"bad From", Config{lookup: env(EnvFrom, "not an address")}, "PLINTH_MAIL_FROM", true},
		{"From wraps", Config{From: "a@example.com", lookup: env()}, "*mail.defaultFrom", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Open(tc.cfg)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Open = %v, want an error containing %q", err, tc.want)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Fatalf("the password is in the error: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := typeName(m); got != tc.want {
				t.Fatalf("Open gave %s, want %s", got, tc.want)
			}
		})
	}
	if gotURL == nil || gotURL.User.Username() != "u" {
		t.Fatalf("the opener got %v", gotURL)
	}
}

func typeName(v any) string {
	switch v.(type) {
	case *LogMailer:
		return "*mail.LogMailer"
	case *Memory:
		return "*mail.Memory"
	case *defaultFrom:
		return "*mail.defaultFrom"
	}
	return "?"
}

// TestWithFrom fills From on a copy and leaves a set one alone.
func TestWithFrom(t *testing.T) {
	mem := &Memory{}
	m := WithFrom(mem, "Team <team@example.com>")
	msg := &Message{To: []string{"a@example.com"}, Text: "x"}
	if err := m.Send(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	if msg.From != "" {
		t.Fatal("the caller's message was changed")
	}
	msg.From = "other@example.com"
	if err := m.Send(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	sent := mem.Sent()
	if sent[0].From != "Team <team@example.com>" || sent[1].From != "other@example.com" {
		t.Fatalf("From %q, %q", sent[0].From, sent[1].From)
	}
	if Ping(context.Background(), m) != nil {
		t.Fatal("Ping through WithFrom of a Memory")
	}
}

// TestLogMailer logs a summary, the body only when asked.
func TestLogMailer(t *testing.T) {
	var buf bytes.Buffer
	l := &LogMailer{Logger: slog.New(slog.NewTextHandler(&buf, nil))}
	msg := &Message{From: "a@example.com", To: []string{"b@example.com"}, Subject: "S", Text: "secret-link"}
	if err := l.Send(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "to=b@example.com") || !strings.Contains(out, "subject=S") || strings.Contains(out, "secret-link") {
		t.Fatalf("log: %s", out)
	}
	buf.Reset()
	l.Body = true
	l.Send(context.Background(), msg)
	if !strings.Contains(buf.String(), "secret-link") {
		t.Fatalf("log with Body: %s", buf.String())
	}
}

// TestMemoryFail: Fail makes Send fail and record nothing.
func TestMemoryFail(t *testing.T) {
	mem := &Memory{}
	mem.Fail(errors.New("down"))
	msg := &Message{From: "a@example.com", To: []string{"b@example.com"}, Text: "x"}
	if err := mem.Send(context.Background(), msg); err == nil || len(mem.Sent()) != 0 {
		t.Fatal("Fail did not fail")
	}
	mem.Fail(nil)
	if err := mem.Send(context.Background(), msg); err != nil || len(mem.Sent()) != 1 || len(mem.Raw()) != 1 {
		t.Fatal("after Fail(nil)")
	}
	mem.Reset()
	if len(mem.Sent()) != 0 {
		t.Fatal("Reset")
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"smtp://u:secret@h:587":  "smtp://u:xxxxx@h:587",
		"log:":                   "log:",
		"smtp://u:se cret%@h:25": "smtp://xxxxx@h:25",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
