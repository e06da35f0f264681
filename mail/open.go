package mail

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/internal/envconf"
)

// The environment variables Open reads.
const (
	// EnvURL selects the transport: "smtp://user:pass@host:587?tls=starttls"
	// (with the mail/smtpmail module's openers), "log:" or "memory:".
	EnvURL = "PLINTH_MAIL_URL"
	// EnvFrom is the sender of messages without a From.
	EnvFrom = "PLINTH_MAIL_FROM"
)

// DefaultURL is the transport when neither Config.URL nor PLINTH_MAIL_URL
// is set: mail is logged, not sent (Attach warns of it when the App
// starts).
const DefaultURL = "log:"

// Opener makes the Mailer for a URL of its scheme. The mail/smtpmail module's
// smtpmail.Openers returns the openers of "smtp" and "smtps".
type Opener func(u *url.URL) (Mailer, error)

// Config is the mail configuration Open resolves. Its zero value means the
// defaults; the environment variables override the fields.
type Config struct {
	// URL selects the transport. PLINTH_MAIL_URL overrides it. Default
	// DefaultURL ("log:"): the first run needs no mail server; a
	// deployment sets PLINTH_MAIL_URL. The built-in schemes:
	//
	//	log:       LogMailer on Logger (log:?body=true logs the text part too)
	//	memory:    a new Memory (tests)
	//
	// Any other scheme is looked up in Openers ("smtp", "smtps").
	URL string
	// Openers are the transports for other schemes, by scheme. An
	// application that sends over SMTP passes smtpmail.Openers(); the core
	// cannot import an SMTP client, and holds no registry of its own.
	// Default none.
	Openers map[string]Opener
	// From, when set, is the sender of every message without a From
	// (WithFrom). PLINTH_MAIL_FROM overrides it; it must parse as an
	// address. Default none: a message without From is invalid.
	From string
	// Logger is the log transport's logger. Default slog.Default().
	Logger *slog.Logger

	lookup    func(string) (string, bool) // os.LookupEnv; a map in tests
	fromEnv   bool                        // URL came from PLINTH_MAIL_URL
	defaulted bool                        // URL is DefaultURL because none was set
}

// EnvNames returns the variables Open reads, for App.DeclareEnv.
func EnvNames() []string { return []string{EnvURL, EnvFrom} }

// resolve applies the environment over c and checks the result.
func (c Config) resolve() (Config, error) {
	r := envconf.New(c.lookup)
	if v, ok := r.Lookup(EnvURL); ok {
		c.URL, c.fromEnv = v, true
	}
	fromInEnv := false
	if v, ok := r.Lookup(EnvFrom); ok {
		c.From, fromInEnv = v, true
	}
	if c.URL == "" {
		c.URL, c.defaulted = DefaultURL, true
	}
	if c.From != "" {
		if err := (&Message{From: c.From, To: []string{"x@example.com"}, Text: "x"}).Validate(); err != nil {
			r.Failf("%s=%q: not a sender address: %v", envOr(fromInEnv, EnvFrom, "Config.From"), c.From, err)
		}
	}
	return c, r.Err("mail")
}

func envOr(env bool, name, field string) string {
	if env {
		return name
	}
	return field
}

// Open resolves cfg (the environment over its fields) and returns the
// transport its URL names, wrapped with WithFrom when a default sender is
// set. A bad URL, an unknown scheme (the message names the module that
// provides it) or a bad sender is an error.
func Open(cfg Config) (Mailer, error) {
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	return cfg.openWithFrom()
}

func (c Config) openWithFrom() (Mailer, error) {
	m, err := c.open()
	if err != nil {
		return nil, err
	}
	if c.From != "" {
		m = WithFrom(m, c.From)
	}
	return m, nil
}

func (c Config) open() (Mailer, error) {
	name := envOr(c.fromEnv, EnvURL, "Config.URL")
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil, fmt.Errorf("mail: %s: %v", name, redactErr(err, c.URL))
	}
	switch u.Scheme {
	case "log":
		body := false
		if v := u.Query().Get("body"); v != "" {
			if v != "true" && v != "false" {
				return nil, fmt.Errorf("mail: %s=%q: body is true or false", name, c.URL)
			}
			body = v == "true"
		}
		return &LogMailer{Logger: c.Logger, Body: body, defaulted: c.defaulted}, nil
	case "memory":
		return &Memory{}, nil
	case "":
		return nil, fmt.Errorf("mail: %s=%q: no scheme (want smtp://, smtps://, log: or memory:)", name, Redact(c.URL))
	}
	if o := c.Openers[u.Scheme]; o != nil {
		m, err := o(u)
		if err != nil {
			return nil, fmt.Errorf("mail: %s=%q: %w", name, Redact(c.URL), err)
		}
		return m, nil
	}
	known := []string{"log", "memory"}
	for s := range c.Openers {
		known = append(known, s)
	}
	slices.Sort(known)
	hint := ""
	if u.Scheme == "smtp" || u.Scheme == "smtps" {
		hint = " (SMTP is in the mail/smtpmail module: mail.Config{Openers: smtpmail.Openers()})"
	}
	return nil, fmt.Errorf("mail: %s=%q: unknown scheme %q%s; known: %s", name, Redact(c.URL), u.Scheme, hint, strings.Join(known, ", "))
}

// redactErr keeps a URL's password out of a url.Parse error.
func redactErr(err error, raw string) string {
	s := err.Error()
	if r := Redact(raw); r != raw {
		s = strings.ReplaceAll(s, raw, r)
	}
	return s
}

// Redact returns the URL with its password replaced by "xxxxx", for logs
// and messages; a string that does not parse is returned with everything
// between "://" and the last '@' replaced.
func Redact(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	if i, j := strings.Index(raw, "://"), strings.LastIndexByte(raw, '@'); i >= 0 && j > i {
		return raw[:i+3] + "xxxxx" + raw[j:]
	}
	return raw
}

// Attach installs m on app: it declares the variables Open reads
// (App.DeclareEnv), and logs the transport in use when the App starts (m's
// String method, when it has one, else its type; the URL's password is
// never in it), with a warning when it is the log transport Open chose
// because no URL was set (Config.URL and PLINTH_MAIL_URL empty): messages
// are then logged, not sent. It logs through App.Logger (else
// slog.Default()). It does not add a readiness check: a mail server that is
// down should not take the App out of its load balancer; use Ping in a
// check of your own that reports it. It panics when m is nil. Make m first
// with Open (or any Mailer), which returns the configuration's errors.
func Attach(app *plinth.App, m Mailer) {
	if m == nil {
		panic("mail: Attach: the Mailer is nil")
	}
	app.DeclareEnv(EnvNames()...)
	app.OnStart(func(context.Context) error {
		log := app.Logger
		if log == nil {
			log = slog.Default()
		}
		desc, defaulted := describeMailer(m)
		if defaulted {
			log.Warn("mail: no mail URL is set ("+EnvURL+" or mail.Config.URL): messages are logged, not sent", "transport", desc)
			return nil
		}
		log.Info("mail: transport", "transport", desc)
		return nil
	})
}

// describeMailer returns what Attach logs of m: the String of the first Mailer
// in its Unwrap chain that has one, else m's type, and whether the chain
// ends in the log transport Open defaulted to.
func describeMailer(m Mailer) (desc string, defaulted bool) {
	for cur := m; cur != nil; {
		if l, ok := cur.(*LogMailer); ok && l.defaulted {
			defaulted = true
		}
		if s, ok := cur.(fmt.Stringer); ok && desc == "" {
			desc = s.String()
		}
		u, ok := cur.(interface{ Unwrap() Mailer })
		if !ok {
			break
		}
		cur = u.Unwrap()
	}
	if desc == "" {
		desc = fmt.Sprintf("%T", m)
	}
	return desc, defaulted
}
