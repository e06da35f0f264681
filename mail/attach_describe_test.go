package mail_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/mail"

	"github.com/plinth-go/plinth/internal/syncbuf"
)

// TestAttachDescribesAnyMailer: Attach announces a Mailer without a String
// method by its type, through WithFrom's Unwrap too; the first String in
// the chain is the description; none of them is the defaulted log
// transport's warning.
func TestAttachDescribesAnyMailer(t *testing.T) {
	fn := mail.MailerFunc(func(context.Context, *mail.Message) error { return nil })
	for _, tc := range []struct {
		m    mail.Mailer
		want string
	}{
		{fn, "transport=mail.MailerFunc"},
		{mail.WithFrom(fn, "a@example.com"), "transport=*mail.defaultFrom"},
		{mail.WithFrom(&mail.Memory{}, "a@example.com"), "transport=memory:"},
		{mail.WithFrom(&mail.LogMailer{Body: true}, "a@example.com"), `transport="log:?body=true"`},
	} {
		var log syncbuf.Buffer
		app := plinth.New()
		app.Config.Addr = "127.0.0.1:0"
		app.Logger = slog.New(slog.NewTextHandler(&log, nil))
		mail.Attach(app, tc.m)
		out := startApp(t, app, &log)
		if !strings.Contains(out, "mail: transport") || !strings.Contains(out, tc.want) || strings.Contains(out, "logged, not sent") {
			t.Errorf("Attach of %T logged:\n%s\nwant %s", tc.m, out, tc.want)
		}
	}
}
