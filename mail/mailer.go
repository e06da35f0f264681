package mail

import "context"

// Mailer sends messages. Send validates the message first (Validate) and
// sends nothing when it is invalid; it returns a PermanentError (wrapped or
// not, see IsPermanent) for a failure retrying cannot cure, and any other
// error for a transient one. Implementations are safe for concurrent use.
//
// The transports: LogMailer, Memory, Queued (through the job queue), and
// smtpmail.Mailer in the mail/smtpmail module.
type Mailer interface {
	Send(ctx context.Context, m *Message) error
}

// MailerFunc adapts a function to Mailer.
type MailerFunc func(ctx context.Context, m *Message) error

// Send calls f(ctx, m).
func (f MailerFunc) Send(ctx context.Context, m *Message) error { return f(ctx, m) }

// Pinger is implemented by a Mailer that can check its server (the SMTP
// transport dials and says NOOP), for a readiness check.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Ping checks m's server when m is a Pinger, and is nil otherwise: the log
// and memory transports have nothing to check.
func Ping(ctx context.Context, m Mailer) error {
	if p, ok := m.(Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// WithFrom returns a Mailer that sets From to from on a message without
// one (on a copy: the caller's message is not changed) and sends it
// through next. Open applies it with Config.From (PLINTH_MAIL_FROM).
func WithFrom(next Mailer, from string) Mailer {
	return &defaultFrom{next: next, from: from}
}

type defaultFrom struct {
	next Mailer
	from string
}

func (d *defaultFrom) Send(ctx context.Context, m *Message) error {
	if m != nil && m.From == "" {
		c := *m
		c.From = d.from
		m = &c
	}
	return d.next.Send(ctx, m)
}

// Ping pings the wrapped Mailer.
func (d *defaultFrom) Ping(ctx context.Context) error { return Ping(ctx, d.next) }

// Unwrap returns the wrapped Mailer.
func (d *defaultFrom) Unwrap() Mailer { return d.next }
