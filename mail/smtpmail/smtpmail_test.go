package smtpmail_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth/mail"
	"github.com/plinth-go/plinth/mail/mailtest"
	"github.com/plinth-go/plinth/mail/smtpmail"
	"github.com/plinth-go/plinth/mail/smtpmail/smtptest"
)

func message() *mail.Message {
	return &mail.Message{
		From:    "Plinth <noreply@example.com>",
		To:      []string{"Zoë <zoe@example.com>"},
		Cc:      []string{"cc@example.com"},
		Bcc:     []string{"bcc@example.com"},
		Subject: "Bienvenue, Zoë ✓",
		Text:    "Bonjour Zoë\n.\nA line starting with a dot above.\n",
		HTML:    "<p>Bonjour <b>Zoë</b></p>",
	}
}

func newMailer(t *testing.T, s *smtptest.Server, mode smtpmail.TLSMode, user, pass string) *smtpmail.Mailer {
	t.Helper()
	m, err := smtpmail.New(smtpmail.Config{
		Host: s.Host(), Port: s.Port(), TLS: mode, TLSConfig: s.ClientTLSConfig(),
		Username: user, Password: pass, Timeout: 5 * time.Second, HELO: "test.local",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// checkDelivered reads the one message the catcher holds back and checks
// its envelope and MIME form.
func checkDelivered(t *testing.T, s *smtptest.Server, wantTLS bool, wantAuth string) {
	t.Helper()
	msgs := s.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages caught, want 1", len(msgs))
	}
	got := msgs[0]
	if got.From != "noreply@example.com" || strings.Join(got.To, ",") != "zoe@example.com,cc@example.com,bcc@example.com" {
		t.Errorf("envelope %s → %v", got.From, got.To)
	}
	if got.TLS != wantTLS || got.Auth != wantAuth {
		t.Errorf("TLS %v auth %q, want %v %q", got.TLS, got.Auth, wantTLS, wantAuth)
	}
	p, err := mailtest.Parse(got.Data)
	if err != nil {
		t.Fatal(err)
	}
	if p.Subject != "Bienvenue, Zoë ✓" || len(p.Alternative) != 2 || p.Alternative[0] != "text/plain" || p.Alternative[1] != "text/html" {
		t.Errorf("subject %q parts %v", p.Subject, p.Alternative)
	}
	if p.Text != "Bonjour Zoë\r\n.\r\nA line starting with a dot above.\r\n" || !strings.HasPrefix(p.HTML, "<p>Bonjour <b>Zoë</b></p>") {
		t.Errorf("text %q html %q", p.Text, p.HTML)
	}
	if strings.Contains(string(got.Data), "bcc@example.com") {
		t.Error("the Bcc address is in the message")
	}
}

// TestSTARTTLS: a server that requires STARTTLS and AUTH gets the message
// encrypted and authenticated.
func TestSTARTTLS(t *testing.T) {
	s := smtptest.New(t, smtptest.Config{TLS: smtptest.STARTTLS, RequireTLS: true, Username: "user", Password: "p@ss"})
	m := newMailer(t, s, smtpmail.STARTTLS, "user", "p@ss")
	if err := m.Send(context.Background(), message()); err != nil {
		t.Fatal(err)
	}
	checkDelivered(t, s, true, "user")
	if cmds := strings.Join(s.Commands(), "|"); !strings.Contains(cmds, "STARTTLS|EHLO") {
		t.Errorf("commands %s: no STARTTLS before the second EHLO", cmds)
	}
}

// TestImplicitTLS: TLS from the first byte.
func TestImplicitTLS(t *testing.T) {
	s := smtptest.New(t, smtptest.Config{TLS: smtptest.ImplicitTLS, Username: "user", Password: "pw"})
	m := newMailer(t, s, smtpmail.ImplicitTLS, "user", "pw")
	if err := m.Send(context.Background(), message()); err != nil {
		t.Fatal(err)
	}
	checkDelivered(t, s, true, "user")
}

// TestNoTLS: the development catcher case (mailpit): plain, no AUTH.
func TestNoTLS(t *testing.T) {
	s := smtptest.New(t, smtptest.Config{})
	m := newMailer(t, s, smtpmail.NoTLS, "", "")
	if err := m.Send(context.Background(), message()); err != nil {
		t.Fatal(err)
	}
	checkDelivered(t, s, false, "")
}

// TestSTARTTLSNeverDowngrades: a server without STARTTLS is an error, not
// a clear-text delivery.
func TestSTARTTLSNeverDowngrades(t *testing.T) {
	s := smtptest.New(t, smtptest.Config{})
	m := newMailer(t, s, smtpmail.STARTTLS, "", "")
	err := m.Send(context.Background(), message())
	if err == nil || mail.IsPermanent(err) || !strings.Contains(err.Error(), "STARTTLS") {
		t.Fatalf("Send = %v, want a transient STARTTLS error", err)
	}
	if n := len(s.Messages()); n != 0 {
		t.Fatalf("%d messages sent in clear", n)
	}
}

// TestUntrustedCertificate: the system roots do not trust the catcher.
func TestUntrustedCertificate(t *testing.T) {
	s := smtptest.New(t, smtptest.Config{TLS: smtptest.ImplicitTLS})
	m, err := smtpmail.New(smtpmail.Config{Host: s.Host(), Port: s.Port(), TLS: smtpmail.ImplicitTLS, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Send(context.Background(), message()); err == nil || len(s.Messages()) != 0 {
		t.Fatalf("Send over an untrusted certificate = %v", err)
	}
}

// TestBadInputSendsNothing: header injection, empty To, no text: an error
// from Send and no connection to the server at all.
func TestBadInputSendsNothing(t *testing.T) {
	s := smtptest.New(t, smtptest.Config{})
	m := newMailer(t, s, smtpmail.NoTLS, "", "")
	for name, modify := range map[string]func(*mail.Message){
		"CRLF in Subject":   func(msg *mail.Message) { msg.Subject = "Hi\r\nBcc: victim@example.com" },
		"LF in From's name": func(msg *mail.Message) { msg.From = "Eve\n <eve@example.com>" },
		"CR in To":          func(msg *mail.Message) { msg.To = []string{"a@example.com\r"} },
		"NUL in a header":   func(msg *mail.Message) { msg.Headers = map[string]string{"X-A": "a\x00"} },
		"CRLF in Cc":        func(msg *mail.Message) { msg.Cc = []string{"c@example.com\r\nX: y"} },
		"empty To":          func(msg *mail.Message) { msg.To = nil },
		"no text":           func(msg *mail.Message) { msg.Text = "" },
	} {
		msg := message()
		modify(msg)
		if err := m.Send(context.Background(), msg); !errors.Is(err, mail.ErrInvalid) || !mail.IsPermanent(err) {
			t.Errorf("%s: Send = %v, want ErrInvalid", name, err)
		}
	}
	if s.Connections() != 0 || len(s.Messages()) != 0 {
		t.Fatalf("%d connections, %d messages: want none", s.Connections(), len(s.Messages()))
	}
}

// TestReplies: 5xx replies are permanent, 4xx transient; a refused
// recipient sends nothing to the others.
func TestReplies(t *testing.T) {
	cases := []struct {
		stage     smtptest.Stage
		reply     string
		permanent bool
	}{
		{smtptest.StageMail, "550 5.7.1 sender refused", true},
		{smtptest.StageMail, "451 4.3.0 try again", false},
		{smtptest.StageRcpt, "550 5.1.1 no such user", true},
		{smtptest.StageRcpt, "452 4.2.2 mailbox full", false},
		{smtptest.StageData, "554 5.6.0 message refused", true},
		{smtptest.StageData, "451 4.3.0 try again later", false},
	}
	for _, tc := range cases {
		t.Run(string(tc.stage)+" "+tc.reply[:3], func(t *testing.T) {
			s := smtptest.New(t, smtptest.Config{})
			s.Script(tc.stage, tc.reply)
			m := newMailer(t, s, smtpmail.NoTLS, "", "")
			err := m.Send(context.Background(), message())
			if err == nil || mail.IsPermanent(err) != tc.permanent || !strings.Contains(err.Error(), tc.reply[4:]) {
				t.Fatalf("Send = %v (permanent %v), want permanent=%v with the reply", err, mail.IsPermanent(err), tc.permanent)
			}
			if re, ok := errors.AsType[*smtpmail.ReplyError](err); !ok || re.Code != atoi(tc.reply[:3]) {
				t.Errorf("no ReplyError with code %s in %v", tc.reply[:3], err)
			}
			if n := len(s.Messages()); n != 0 {
				t.Fatalf("%d messages caught", n)
			}
			// The script is used up: the next send goes through.
			if err := m.Send(context.Background(), message()); err != nil {
				t.Fatalf("second Send: %v", err)
			}
			if n := len(s.Messages()); n != 1 {
				t.Fatalf("%d messages caught after the retry, want 1", n)
			}
		})
	}
}

// TestReusesConnections: consecutive sends share one connection; one the
// server dropped while idle is replaced without an error.
func TestReusesConnections(t *testing.T) {
	s := smtptest.New(t, smtptest.Config{TLS: smtptest.STARTTLS, Username: "u", Password: "p"})
	m := newMailer(t, s, smtpmail.STARTTLS, "u", "p")
	for range 3 {
		if err := m.Send(context.Background(), message()); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.Connections(); n != 1 {
		t.Fatalf("%d connections for 3 messages, want 1", n)
	}
	s.DropConnections()
	if err := m.Send(context.Background(), message()); err != nil {
		t.Fatalf("Send after the server dropped the idle connection: %v", err)
	}
	if n, msgs := s.Connections(), len(s.Messages()); n != 2 || msgs != 4 {
		t.Fatalf("%d connections, %d messages; want 2 and 4", n, msgs)
	}

	// MaxIdle -1: a connection per message.
	s2 := smtptest.New(t, smtptest.Config{})
	m2, _ := smtpmail.New(smtpmail.Config{Host: s2.Host(), Port: s2.Port(), TLS: smtpmail.NoTLS, MaxIdle: -1})
	for range 2 {
		if err := m2.Send(context.Background(), message()); err != nil {
			t.Fatal(err)
		}
	}
	if n := s2.Connections(); n != 2 {
		t.Fatalf("MaxIdle -1: %d connections, want 2", n)
	}
}

// TestWrongPassword is transient (the configuration's fault).
func TestWrongPassword(t *testing.T) {
	s := smtptest.New(t, smtptest.Config{TLS: smtptest.ImplicitTLS, Username: "u", Password: "right"})
	m := newMailer(t, s, smtpmail.ImplicitTLS, "u", "wrong")
	err := m.Send(context.Background(), message())
	if err == nil || mail.IsPermanent(err) {
		t.Fatalf("Send = %v, want a transient error", err)
	}
	if len(s.Messages()) != 0 {
		t.Fatal("a message was accepted")
	}
}

// TestTimeout: a server that never answers fails Send within the timeout
// (or the context's deadline), as a transient error.
func TestTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { <-done; c.Close() }() // never greets
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	m, _ := smtpmail.New(smtpmail.Config{Host: "127.0.0.1", Port: port, TLS: smtpmail.NoTLS, Timeout: 200 * time.Millisecond})
	if err := m.Send(context.Background(), message()); err == nil || mail.IsPermanent(err) {
		t.Fatalf("Send to a silent server = %v, want a transient error", err)
	}
	m2, _ := smtpmail.New(smtpmail.Config{Host: "127.0.0.1", Port: port, TLS: smtpmail.NoTLS})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := m2.Send(ctx, message()); err == nil || mail.IsPermanent(err) {
		t.Fatalf("Send with a context deadline = %v, want a transient error", err)
	}
}

// TestRefusedConnection is transient.
func TestRefusedConnection(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	m, _ := smtpmail.New(smtpmail.Config{Host: "127.0.0.1", Port: port, TLS: smtpmail.NoTLS})
	if err := m.Send(context.Background(), message()); err == nil || mail.IsPermanent(err) {
		t.Fatalf("Send = %v, want a transient error", err)
	}
	if err := m.Ping(context.Background()); err == nil {
		t.Fatal("Ping of a closed port")
	}
}

func TestPing(t *testing.T) {
	s := smtptest.New(t, smtptest.Config{TLS: smtptest.STARTTLS})
	m := newMailer(t, s, smtpmail.STARTTLS, "", "")
	if err := mail.Ping(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if cmds := strings.Join(s.Commands(), "|"); !strings.Contains(cmds, "NOOP") || !strings.HasSuffix(cmds, "QUIT") {
		t.Fatalf("commands %s", cmds)
	}
}

func TestFromURL(t *testing.T) {
	good := map[string]smtpmail.Config{
		"smtp://u:p%40ss@mail.example.com:2525?tls=starttls&timeout=3s": {Host: "mail.example.com", Port: 2525, Username: "u", Password: "p@ss", TLS: smtpmail.STARTTLS, Timeout: 3 * time.Second},
		"smtp://mail.example.com":        {Host: "mail.example.com", TLS: smtpmail.STARTTLS},
		"smtp://localhost:1025?tls=none": {Host: "localhost", Port: 1025, TLS: smtpmail.NoTLS},
		"smtp://h?tls=implicit":          {Host: "h", TLS: smtpmail.ImplicitTLS},
		"smtps://u:p@h":                  {Host: "h", Username: "u", Password: "p", TLS: smtpmail.ImplicitTLS},
	}
	for raw, want := range good {
		u, _ := url.Parse(raw)
		got, err := smtpmail.FromURL(u)
		if err != nil || got.Host != want.Host || got.Port != want.Port || got.Username != want.Username || got.Password != want.Password || got.TLS != want.TLS || got.Timeout != want.Timeout {
			t.Errorf("FromURL(%s) = %+v, %v; want %+v", raw, got, err, want)
		}
	}
	for _, raw := range []string{"smtp://", "smtp://h:0", "smtp://h:99999", "smtp://h?tls=maybe", "smtps://h?tls=none", "smtp://h?timeout=-1s", "smtp://h?tsl=none", "http://h"} {
		u, _ := url.Parse(raw)
		if _, err := smtpmail.FromURL(u); err == nil {
			t.Errorf("FromURL(%s) accepted", raw)
		}
	}
	// Through mail.Open with the module's openers; defaults filled.
	t.Setenv(mail.EnvURL, "smtps://u:secret@h")
	m, err := mail.Open(mail.Config{Openers: smtpmail.Openers()})
	if err != nil {
		t.Fatal(err)
	}
	cfg := m.(*smtpmail.Mailer).Config()
	if cfg.Port != 465 || cfg.Timeout != smtpmail.DefaultTimeout || cfg.MaxIdle != smtpmail.DefaultMaxIdle {
		t.Fatalf("resolved %+v", cfg)
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// TestMixedRefusals: one recipient refused for good and one for now is
// transient (a retry may deliver to both); nothing is sent to the third.
func TestMixedRefusals(t *testing.T) {
	s := smtptest.New(t, smtptest.Config{})
	s.Script(smtptest.StageRcpt, "550 5.1.1 no such user", "452 4.2.2 mailbox full")
	m := newMailer(t, s, smtpmail.NoTLS, "", "")
	err := m.Send(context.Background(), message())
	if err == nil || mail.IsPermanent(err) || !strings.Contains(err.Error(), "550") || !strings.Contains(err.Error(), "452") {
		t.Fatalf("Send = %v, want a transient error naming both refusals", err)
	}
	if len(s.Messages()) != 0 {
		t.Fatal("a message was accepted")
	}
	if cmds := strings.Join(s.Commands(), "|"); !strings.Contains(cmds, "RSET") || strings.Contains(cmds, "DATA") {
		t.Fatalf("commands %s: want RSET and no DATA", cmds)
	}
}

// TestCancelMidTransaction: a context cancelled while the server sits on
// RCPT ends Send with context.Canceled (the connection closed under it),
// transient, and the connection is not reused.
func TestCancelMidTransaction(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	rcpt := make(chan struct{}, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				c.Write([]byte("220 hold ESMTP\r\n"))
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					switch verb := strings.ToUpper(strings.Fields(line + " x")[0]); verb {
					case "EHLO", "HELO":
						c.Write([]byte("250 hold\r\n"))
					case "MAIL":
						c.Write([]byte("250 ok\r\n"))
					case "RCPT":
						rcpt <- struct{}{} // and never answer
					default:
						c.Write([]byte("250 ok\r\n"))
					}
				}
			}()
		}
	}()
	m, _ := smtpmail.New(smtpmail.Config{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port, TLS: smtpmail.NoTLS, Timeout: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-rcpt; cancel() }()
	done := make(chan error, 1)
	go func() { done <- m.Send(ctx, message()) }()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second): // a bound against a hang (Timeout is an hour), not a timing assertion
		t.Fatal("Send did not return after the cancel")
	}
	if !errors.Is(err, context.Canceled) || mail.IsPermanent(err) {
		t.Fatalf("Send = %v, want a transient error wrapping context.Canceled", err)
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	for _, cfg := range []smtpmail.Config{
		{},
		{Host: "h", Port: 70000},
		{Host: "h", Timeout: -time.Second},
		{Host: "h", IdleTimeout: -time.Second},
		{Host: "h", MaxIdle: -2},
		{Host: "h", TLS: "ssl"},
	} {
		if _, err := smtpmail.New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}

// TestString: what mail.Attach logs names the server, the TLS mode and the
// user, never the password.
func TestString(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"smtp://u:secret@mx.example:2525", "smtp://u@mx.example:2525?tls=starttls"},
		{"smtps://u:secret@mx.example", "smtps://u@mx.example:465"},
		{"smtp://localhost:1025?tls=none", "smtp://localhost:1025?tls=none"},
	} {
		u, _ := url.Parse(tc.url)
		m, err := smtpmail.Open(u)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.(fmt.Stringer).String(); got != tc.want {
			t.Errorf("%s: String() = %q, want %q", tc.url, got, tc.want)
		}
	}
}
