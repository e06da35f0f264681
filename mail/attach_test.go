package mail_test

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/mail"

	"github.com/plinth-go/plinth/internal/syncbuf"
)

// startApp serves app until its start hooks have run, then stops it, and
// returns what it logged.
func startApp(t *testing.T, app *plinth.App, log *syncbuf.Buffer) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	for range 200 { // the start log comes before Serve accepts; a bound, not a timing assertion
		if strings.Contains(log.String(), "mail:") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return log.String()
}

// TestAttach: the variables are declared (no misspelling warning), the
// default transport is announced with a warning, a set one by its String,
// a wrapped one (WithFrom, from Config.From) through Unwrap; a bad URL is
// Open's error, before anything is attached.
func TestAttach(t *testing.T) {
	for _, tc := range []struct {
		url, want, notWant string
	}{
		{"", "messages are logged, not sent", "not read by Plinth"},
		{"memory:", `transport=memory:`, "not read by Plinth"},
		{"log:?body=true", `transport="log:?body=true"`, "messages are logged, not sent"},
	} {
		t.Setenv(mail.EnvURL, tc.url)
		t.Setenv(mail.EnvFrom, "Team <team@example.com>")
		var log syncbuf.Buffer
		app := plinth.New()
		app.Logger = slog.New(slog.NewTextHandler(&log, nil))
		m, err := mail.Open(mail.Config{Logger: app.Logger})
		if err != nil {
			t.Fatal(err)
		}
		mail.Attach(app, m)
		if err := m.Send(context.Background(), &mail.Message{To: []string{"a@example.com"}, Text: "x"}); err != nil {
			t.Fatalf("Send with the default From: %v", err)
		}
		out := startApp(t, app, &log)
		if !strings.Contains(out, tc.want) || strings.Contains(out, tc.notWant) {
			t.Errorf("URL %q: log\n%s\nwant %q, not %q", tc.url, out, tc.want, tc.notWant)
		}
	}
	t.Setenv(mail.EnvURL, "smtp://u:secret@h")
	if _, err := mail.Open(mail.Config{}); err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), mail.EnvURL) {
		t.Fatalf("Open with smtp:// and no opener: %v", err)
	}
}

// TestAttachNil: a nil Mailer panics at Attach.
func TestAttachNil(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("no panic")
		}
	}()
	mail.Attach(plinth.New(), nil)
}
