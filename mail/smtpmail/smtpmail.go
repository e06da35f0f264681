// Package smtpmail sends Plinth mail over SMTP: STARTTLS or implicit TLS,
// authentication, deadlines, reused connections, and replies classified
// for the queue (a 5xx reply is a mail.PermanentError, a 4xx reply or a
// network error a transient one). The SMTP protocol is
// github.com/wneessen/go-mail's (its dialer, TLS policy and authentication
// mechanisms); the message's MIME form is the core's (mail.Message.WriteTo).
//
//	m, err := mail.Open(mail.Config{Openers: smtpmail.Openers()})
//	// PLINTH_MAIL_URL=smtp://user:pass@smtp.example.com:587?tls=starttls
package smtpmail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	gomail "github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"

	"github.com/plinth-go/plinth/mail"
)

// TLSMode is how a connection is encrypted.
type TLSMode string

// The TLS modes.
const (
	// STARTTLS connects in clear and upgrades with STARTTLS before
	// anything else; a server that does not offer it is an error (never
	// a silent downgrade). Default port 587.
	STARTTLS TLSMode = "starttls"
	// ImplicitTLS speaks TLS from the first byte ("smtps"). Default port
	// 465.
	ImplicitTLS TLSMode = "implicit"
	// NoTLS never encrypts: for a development catcher on localhost
	// (mailpit) only. Default port 25.
	NoTLS TLSMode = "none"
)

// Defaults of Config.
const (
	// DefaultTimeout bounds the dial and each SMTP exchange.
	DefaultTimeout = 10 * time.Second
	// DefaultMaxIdle is the number of idle connections kept for reuse.
	DefaultMaxIdle = 2
	// DefaultIdleTimeout closes a connection idle this long: well under
	// the 5 minutes RFC 5321 lets a server wait, so that a reused
	// connection is rarely one the server already closed.
	DefaultIdleTimeout = 30 * time.Second
)

// Config configures New. Only Host is required.
type Config struct {
	// Host is the server's host name (also the name its TLS certificate
	// must have). Required.
	Host string
	// Port is the server's port. Default 587 for STARTTLS, 465 for
	// ImplicitTLS, 25 for NoTLS.
	Port int
	// Username and Password authenticate with the best mechanism the
	// server offers (go-mail's choice: SCRAM, NTLM, CRAM-MD5, then PLAIN or
	// LOGIN, these two over TLS only). Default none: no AUTH.
	Username, Password string
	// TLS is the encryption. Default STARTTLS.
	TLS TLSMode
	// TLSConfig is the TLS client configuration (a test's RootCAs). Default
	// the system's roots, ServerName Host, TLS 1.2 or later.
	TLSConfig *tls.Config
	// Timeout bounds the dial (with its TLS handshake, EHLO and AUTH) and
	// each message's exchange; the context's deadline, when sooner, wins.
	// Default DefaultTimeout (10 s).
	Timeout time.Duration
	// HELO is the name sent in EHLO. Default the machine's host name.
	HELO string
	// MaxIdle is the number of idle connections kept for the next Send,
	// saving a dial, EHLO (and the TLS handshake and AUTH, where used) per
	// message: rendering and sending a message to an in-process catcher
	// without TLS took 127 µs of CPU over a reused connection against 380
	// µs over a new one (bench/services/run-mail.sh, BENCHMARKS.md "Mail",
	// 2026-12-03). Default DefaultMaxIdle; -1 keeps none (a connection per
	// message).
	MaxIdle int
	// IdleTimeout closes an idle connection after this long. Default
	// DefaultIdleTimeout (30 s).
	IdleTimeout time.Duration
}

// Mailer sends messages over SMTP. It is safe for concurrent use: each
// Send holds one connection, taken from the idle ones or dialled.
type Mailer struct {
	cfg    Config
	opts   []gomail.Option
	client *gomail.Client // dials: TLS policy, EHLO, AUTH

	mu     sync.Mutex
	idle   []*idleConn
	closed bool
}

type idleConn struct {
	c     *smtp.Client
	since time.Time
}

// New returns a Mailer for cfg. It does not connect: the first Send
// (or Ping) does.
func New(cfg Config) (*Mailer, error) {
	switch {
	case cfg.Host == "":
		return nil, errors.New("smtpmail: Config.Host is required")
	case cfg.Port < 0 || cfg.Port > 65535:
		return nil, fmt.Errorf("smtpmail: Config.Port %d: want 1 to 65535 (0: the mode's default)", cfg.Port)
	case cfg.Timeout < 0 || cfg.IdleTimeout < 0:
		return nil, errors.New("smtpmail: Config.Timeout and IdleTimeout must not be negative (0: the default)")
	case cfg.MaxIdle < -1:
		return nil, fmt.Errorf("smtpmail: Config.MaxIdle %d: want -1 (none), 0 (the default) or more", cfg.MaxIdle)
	}
	if cfg.TLS == "" {
		cfg.TLS = STARTTLS
	}
	if cfg.Port == 0 {
		switch cfg.TLS {
		case ImplicitTLS:
			cfg.Port = 465
		case NoTLS:
			cfg.Port = 25
		default:
			cfg.Port = 587
		}
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxIdle == 0 {
		cfg.MaxIdle = DefaultMaxIdle
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	tlsConfig := cfg.TLSConfig
	if tlsConfig == nil {
		tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	} else {
		tlsConfig = tlsConfig.Clone()
	}
	if tlsConfig.ServerName == "" {
		tlsConfig.ServerName = cfg.Host
	}
	opts := []gomail.Option{
		gomail.WithPort(cfg.Port),
		gomail.WithTimeout(cfg.Timeout),
		gomail.WithTLSConfig(tlsConfig),
		gomail.WithoutNoop(),
	}
	switch cfg.TLS {
	case STARTTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	case ImplicitTLS:
		opts = append(opts, gomail.WithSSL())
	case NoTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		return nil, fmt.Errorf("smtpmail: TLS mode %q: use starttls, implicit or none", cfg.TLS)
	}
	if cfg.HELO != "" {
		opts = append(opts, gomail.WithHELO(cfg.HELO))
	}
	if cfg.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(cfg.Username), gomail.WithPassword(cfg.Password))
	}
	c, err := gomail.NewClient(cfg.Host, opts...)
	if err != nil {
		return nil, fmt.Errorf("smtpmail: %w", err)
	}
	return &Mailer{cfg: cfg, opts: opts, client: c}, nil
}

// Config returns the configuration with its defaults filled in.
func (m *Mailer) Config() Config { return m.cfg }

// String describes the server, never with the password:
// "smtp://user@host:587?tls=starttls" (what mail.Attach logs).
func (m *Mailer) String() string {
	u := url.URL{Scheme: "smtp", Host: net.JoinHostPort(m.cfg.Host, strconv.Itoa(m.cfg.Port)), RawQuery: "tls=" + string(m.cfg.TLS)}
	if m.cfg.TLS == ImplicitTLS {
		u.Scheme, u.RawQuery = "smtps", ""
	}
	if m.cfg.Username != "" {
		u.User = url.User(m.cfg.Username)
	}
	return u.String()
}

// Send validates msg (nothing is sent when it is invalid, an address
// RFC 5321 cannot carry safely included: an error wrapping
// mail.ErrInvalid, before any connection) and sends it: MAIL FROM, one RCPT TO per
// recipient (To, Cc, Bcc), DATA with the message's MIME form. A 5xx reply
// to any of these is a mail.PermanentError; a 4xx reply, a refused or
// broken connection, a TLS or AUTH failure or a timeout is a transient
// error (a rejected login is the configuration's fault, not the
// message's: retried, a corrected password still delivers the queue).
// One refused recipient fails the whole message (RSET, nothing sent), so
// that a retry never sends twice to the others; it is permanent only when
// every refusal was a 5xx.
func (m *Mailer) Send(ctx context.Context, msg *mail.Message) error {
	env, err := msg.Envelope()
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		c, reused, err := m.conn(ctx)
		if err != nil {
			return err
		}
		noReply, broken, err := m.send(ctx, c, env, msg)
		if err == nil {
			if broken { // the context ended as the server accepted: the connection was closed
				c.Close()
			} else {
				m.release(c)
			}
			return nil
		}
		c.Close()
		// A reused connection the server closed while it was idle fails
		// at its first command without a reply: dial once more.
		if reused && noReply && attempt == 0 && ctx.Err() == nil {
			continue
		}
		return err
	}
}

// send runs one mail transaction on c. noReply reports that its first
// command failed without a reply from the server; broken that the
// context's end closed c.
func (m *Mailer) send(ctx context.Context, c *smtp.Client, env mail.Envelope, msg *mail.Message) (noReply, broken bool, err error) {
	if err := m.deadline(ctx, c); err != nil {
		return false, false, transient("setting the deadline", err)
	}
	// The client holds its lock while it waits for a reply, so Close would
	// wait too: close the connection under it instead.
	stop := context.AfterFunc(ctx, func() { c.Text.Close() })
	defer func() {
		if !stop() {
			broken = true
			if err != nil {
				err = fmt.Errorf("smtpmail: %w (%w)", context.Cause(ctx), err)
			}
		}
	}()
	// go-mail sends the path as given: RFC 5321 wants the brackets. The
	// envelope's addresses are RFC 5321 mailboxes (mail.Envelope: never a
	// space, '<' or '>', a local part quoted when it must be), so nothing
	// between them can end the path early or add a parameter.
	if err := c.Mail("<" + env.From + ">"); err != nil {
		return !isReply(err), false, classify("MAIL FROM", err)
	}
	var refused []error
	permanent := true
	for _, to := range env.To {
		if err := c.Rcpt("<" + to + ">"); err != nil {
			if !isReply(err) {
				return false, false, transient("RCPT TO", err)
			}
			refused = append(refused, reply("RCPT TO "+to, err))
			permanent = permanent && code(err) >= 500
		}
	}
	if len(refused) > 0 {
		if rerr := c.Reset(); rerr != nil {
			refused = append(refused, fmt.Errorf("RSET: %w", rerr))
			c.Close()
		}
		err := fmt.Errorf("smtpmail: recipients refused, nothing sent: %w", errors.Join(refused...))
		if permanent {
			return false, false, mail.Permanent(err)
		}
		return false, false, err
	}
	w, err := c.Data()
	if err != nil {
		return false, false, classify("DATA", err)
	}
	if _, err := msg.WriteTo(w); err != nil {
		w.Close()
		return false, false, transient("writing the message", err)
	}
	if err := w.Close(); err != nil {
		return false, false, classify("end of DATA", err)
	}
	return false, false, nil
}

// deadline sets c's deadline: Timeout from now, or ctx's deadline when
// sooner.
func (m *Mailer) deadline(ctx context.Context, c *smtp.Client) error {
	d := m.cfg.Timeout
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(dl))
	}
	if d <= 0 {
		return context.DeadlineExceeded
	}
	return c.UpdateDeadline(d)
}

// conn returns an idle connection or a new one.
func (m *Mailer) conn(ctx context.Context) (*smtp.Client, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, fmt.Errorf("smtpmail: %w", err)
	}
	now := time.Now()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, false, errors.New("smtpmail: Mailer is closed")
	}
	var stale []*smtp.Client
	var c *smtp.Client
	for len(m.idle) > 0 {
		ic := m.idle[len(m.idle)-1]
		m.idle = m.idle[:len(m.idle)-1]
		if now.Sub(ic.since) >= m.cfg.IdleTimeout {
			stale = append(stale, ic.c)
			continue
		}
		c = ic.c
		break
	}
	m.mu.Unlock()
	for _, s := range stale {
		s.Close()
	}
	if c != nil {
		return c, true, nil
	}
	c, err := m.dial(ctx)
	if err != nil {
		return nil, false, err
	}
	return c, false, nil
}

// dial connects, says EHLO, STARTTLS and AUTH as configured, all within
// Timeout or ctx's deadline when sooner (go-mail bounds the exchanges
// after the TCP connect by its client's timeout, not by the context: a
// sooner deadline gets a client of its own).
func (m *Mailer) dial(ctx context.Context) (*smtp.Client, error) {
	client, timeout := m.client, m.cfg.Timeout
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < timeout {
		timeout = time.Until(dl)
		if timeout <= 0 {
			return nil, fmt.Errorf("smtpmail: connecting: %w", context.DeadlineExceeded)
		}
		var err error
		if client, err = gomail.NewClient(m.cfg.Host, append(m.opts[:len(m.opts):len(m.opts)], gomail.WithTimeout(timeout))...); err != nil {
			return nil, fmt.Errorf("smtpmail: %w", err)
		}
	}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := client.DialToSMTPClientWithContext(dctx)
	if err != nil {
		return nil, transient("connecting to "+net.JoinHostPort(m.cfg.Host, strconv.Itoa(m.cfg.Port)), err)
	}
	return c, nil
}

// release keeps c for reuse, or closes it (QUIT) when enough are idle.
func (m *Mailer) release(c *smtp.Client) {
	m.mu.Lock()
	if !m.closed && len(m.idle) < m.cfg.MaxIdle {
		m.idle = append(m.idle, &idleConn{c: c, since: time.Now()})
		m.mu.Unlock()
		return
	}
	m.mu.Unlock()
	m.quit(c)
}

// quit says QUIT within a short deadline and closes c.
func (m *Mailer) quit(c *smtp.Client) {
	c.UpdateDeadline(time.Second)
	c.Quit()
	c.Close()
}

// Ping dials the server (with TLS and AUTH as configured), says NOOP
// and QUIT: a readiness check of the mail path.
func (m *Mailer) Ping(ctx context.Context) error {
	c, err := m.dial(ctx)
	if err != nil {
		return err
	}
	defer m.quit(c)
	if err := c.Noop(); err != nil {
		return classify("NOOP", err)
	}
	return nil
}

// Close closes the idle connections (QUIT); a Send after Close fails.
func (m *Mailer) Close() error {
	m.mu.Lock()
	idle := m.idle
	m.idle, m.closed = nil, true
	m.mu.Unlock()
	for _, ic := range idle {
		m.quit(ic.c)
	}
	return nil
}

// isReply reports whether err is the server's reply (an SMTP code).
func isReply(err error) bool {
	_, ok := errors.AsType[*textproto.Error](err)
	return ok
}

// code returns the reply code in err, or 0.
func code(err error) int {
	if te, ok := errors.AsType[*textproto.Error](err); ok {
		return te.Code
	}
	if re, ok := errors.AsType[*ReplyError](err); ok {
		return re.Code
	}
	return 0
}

// ReplyError is a server's refusal of a command: its reply code and text.
// Send returns it wrapped in a mail.PermanentError for a 5xx code.
type ReplyError struct {
	// Command is the refused command ("MAIL FROM", "RCPT TO a@example.com",
	// "DATA", "end of DATA").
	Command string
	// Code is the reply code (451, 550, ...).
	Code int
	// Message is the reply's text ("5.1.1 no such user").
	Message string
}

// Error returns "COMMAND: CODE MESSAGE".
func (e *ReplyError) Error() string {
	return fmt.Sprintf("%s: %d %s", e.Command, e.Code, e.Message)
}

// reply turns a command's error into a *ReplyError when it is a reply.
func reply(command string, err error) error {
	if te, ok := errors.AsType[*textproto.Error](err); ok {
		return &ReplyError{Command: command, Code: te.Code, Message: te.Msg}
	}
	return err
}

// classify wraps a command's error: permanent for a 5xx reply.
func classify(command string, err error) error {
	c := code(err)
	err = fmt.Errorf("smtpmail: %w", reply(command, err))
	if c >= 500 {
		return mail.Permanent(err)
	}
	return err
}

// transient wraps an error that retrying may cure.
func transient(step string, err error) error {
	return fmt.Errorf("smtpmail: %s: %w", step, err)
}

// FromURL reads a Config from an SMTP URL:
//
//	smtp://user:pass@host:port?tls=starttls|implicit|none&timeout=10s
//	smtps://user:pass@host:port        (tls=implicit)
//
// The user and password are URL-decoded (a '@' in a password is %40).
// tls defaults to starttls for smtp:// and is implicit for smtps://.
func FromURL(u *url.URL) (Config, error) {
	var cfg Config
	switch u.Scheme {
	case "smtp":
		cfg.TLS = STARTTLS
	case "smtps":
		cfg.TLS = ImplicitTLS
	default:
		return cfg, fmt.Errorf("smtpmail: scheme %q: want smtp or smtps", u.Scheme)
	}
	cfg.Host = u.Hostname()
	if cfg.Host == "" {
		return cfg, errors.New("smtpmail: the URL has no host")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return cfg, fmt.Errorf("smtpmail: port %q: want 1 to 65535", p)
		}
		cfg.Port = n
	}
	if u.User != nil {
		cfg.Username = u.User.Username()
		cfg.Password, _ = u.User.Password()
	}
	q := u.Query()
	for k := range q {
		switch k {
		case "tls", "timeout":
		default:
			return cfg, fmt.Errorf("smtpmail: unknown URL parameter %q (known: tls, timeout)", k)
		}
	}
	if v := q.Get("tls"); v != "" {
		mode := TLSMode(strings.ToLower(v))
		switch {
		case mode != STARTTLS && mode != ImplicitTLS && mode != NoTLS:
			return cfg, fmt.Errorf("smtpmail: tls=%q: use starttls, implicit or none", v)
		case u.Scheme == "smtps" && mode != ImplicitTLS:
			return cfg, fmt.Errorf("smtpmail: tls=%q contradicts smtps:// (implicit TLS)", v)
		}
		cfg.TLS = mode
	}
	if v := q.Get("timeout"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return cfg, fmt.Errorf("smtpmail: timeout=%q: want a positive Go duration (10s)", v)
		}
		cfg.Timeout = d
	}
	return cfg, nil
}

// Open returns a Mailer for an smtp:// or smtps:// URL (FromURL).
func Open(u *url.URL) (mail.Mailer, error) {
	cfg, err := FromURL(u)
	if err != nil {
		return nil, err
	}
	return New(cfg)
}

var _ mail.Pinger = (*Mailer)(nil)

// Openers returns the openers of the "smtp" and "smtps" schemes, for
// mail.Config.Openers.
func Openers() map[string]mail.Opener {
	return map[string]mail.Opener{"smtp": Open, "smtps": Open}
}
