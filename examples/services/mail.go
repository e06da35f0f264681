package main

import (
	"cmp"
	"context"
	"embed"
	"io/fs"
	"os"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/mail"
	"github.com/plinth-go/plinth/mail/smtpmail"
)

// mailFiles holds the welcome mail's templates: welcome.txt (the subject,
// UTF-8, sent as RFC 2047 encoded words, and the text part) and welcome.html (the HTML part, html/template: the
// name is escaped).
//
//go:embed mails
var mailFiles embed.FS

// defaultFrom is the sender when PLINTH_MAIL_FROM is unset.
const defaultFrom = "Plinth services <services@example.com>"

// mailer renders the welcome mail and enqueues it.
type mailer struct {
	templates *mail.Templates
	queued    *mail.Queued
	from      string
}

// openMailer opens the transport PLINTH_MAIL_URL names (log: by default,
// smtp:// and smtps:// through the mail/smtpmail module), registers the worker
// that delivers queued mail on client (in every role: a web process
// enqueues; its errors, which the queue records, have their addresses
// redacted), and adds the degraded readiness check "mail".
func openMailer(app *plinth.App, client *jobs.Client) (*mailer, error) {
	from := cmp.Or(os.Getenv(mail.EnvFrom), defaultFrom)
	transport, err := mail.Open(mail.Config{Openers: smtpmail.Openers(), From: from})
	if err != nil {
		return nil, err
	}
	mail.Attach(app, transport)
	files, err := fs.Sub(mailFiles, "mails")
	if err != nil {
		return nil, err
	}
	t, err := mail.NewTemplates(mail.TemplatesConfig{Files: files, Dir: "."})
	if err != nil {
		return nil, err
	}
	mail.HandleQueued(client, redactingMailer{next: transport}) // a job's recorded errors name no address
	app.DegradedCheck("mail", 2*time.Second, func(ctx context.Context) error { return mail.Ping(ctx, transport) })
	return &mailer{templates: t, queued: mail.NewQueued(mail.QueuedConfig{Client: client}), from: from}, nil
}

// enqueueWelcome renders the welcome mail to email and enqueues it, in the
// transaction ctx carries: it returns the job.
func (m *mailer) enqueueWelcome(ctx context.Context, email, name string) (jobs.Result, error) {
	msg := &mail.Message{From: m.from, To: []string{email}} // the subject is welcome.txt's "subject" block
	if err := m.templates.Render(msg, "welcome", "en", map[string]string{"Name": name, "Email": email}); err != nil {
		return jobs.Result{}, err
	}
	return m.queued.Enqueue(ctx, msg, nil)
}
