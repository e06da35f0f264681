package mail

import (
	"context"
	"log/slog"
	"strings"
)

// LogMailer is the development transport ("log:"): Send validates the
// message and logs it at Info level instead of sending it: the sender,
// recipients, subject, sizes and, with Body, the text part. Nothing leaves
// the process.
type LogMailer struct {
	// Logger receives the records. Default slog.Default().
	Logger *slog.Logger
	// Body adds the text part to each record ("text"). Default false:
	// the text of a password reset mail holds its secret link.
	Body bool

	defaulted bool // Open chose it because no URL was set
}

// String returns the transport's URL: "log:", or "log:?body=true".
func (l *LogMailer) String() string {
	if l.Body {
		return "log:?body=true"
	}
	return "log:"
}

// Send validates m and logs it.
func (l *LogMailer) Send(ctx context.Context, m *Message) error {
	env, err := m.Envelope()
	if err != nil {
		return err
	}
	log := l.Logger
	if log == nil {
		log = slog.Default()
	}
	attrs := []slog.Attr{
		slog.String("from", m.From),
		slog.String("to", strings.Join(m.To, ", ")),
		slog.Int("recipients", len(env.To)),
		slog.String("subject", m.Subject),
		slog.Int("text_bytes", len(m.Text)),
		slog.Int("html_bytes", len(m.HTML)),
		slog.Int("attachments", len(m.Attachments)),
	}
	if l.Body {
		attrs = append(attrs, slog.String("text", m.Text))
	}
	log.LogAttrs(ctx, slog.LevelInfo, "mail: not sent (log transport)", attrs...)
	return nil
}
