package services

// The mail benchmarks: one welcome message (a subject, a text part and an
// HTML part, each through a layout) rendered and sent over SMTP to the
// in-process catcher mail/smtpmail/smtptest, by Plinth (mail.Templates and
// smtpmail) and by raw go-mail (the same templates executed with
// text/template and html/template, a go-mail Msg, go-mail's Client), in
// the same run. run-mail.sh runs them; BENCHMARKS.md ("Mail") has the
// figures.

import (
	"bytes"
	"context"
	htmltemplate "html/template"
	"io"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	texttemplate "text/template"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/plinth-go/plinth/mail"
	"github.com/plinth-go/plinth/mail/smtpmail"
	"github.com/plinth-go/plinth/mail/smtpmail/smtptest"
)

// The templates both sides render: a layout and a page for each part.
const (
	textLayout = "{{ block \"body\" . }}{{ end }}\n-- \nThe Plinth team\nhttps://example.com/account\n"
	htmlLayout = `<!doctype html><html lang="en"><body style="font-family:sans-serif">{{ block "body" . }}{{ end }}<hr><p>The Plinth team</p></body></html>`
	textPage   = "{{ define \"subject\" }}Welcome to Plinth, {{ .Name }}{{ end }}{{ define \"body\" }}Hello {{ .Name }},\n\nyour account {{ .Email }} is ready. Sign in at https://example.com/login\n{{ end }}{{ template \"layouts/base.txt\" . }}"
	htmlPage   = `{{ define "body" }}<h1>Hello {{ .Name }}</h1><p>Your account <b>{{ .Email }}</b> is ready. <a href="https://example.com/login">Sign in</a>.</p>{{ end }}{{ template "layouts/base.html" . }}`
)

type welcome struct{ Name, Email string }

var welcomeData = welcome{Name: "Zoë <Ünal>", Email: "zoe@example.com"}

func mailFS() fstest.MapFS {
	return fstest.MapFS{
		"mail/layouts/base.txt":  {Data: []byte(textLayout)},
		"mail/layouts/base.html": {Data: []byte(htmlLayout)},
		"mail/welcome.txt":       {Data: []byte(textPage)},
		"mail/welcome.html":      {Data: []byte(htmlPage)},
	}
}

func plinthTemplates(tb testing.TB) *mail.Templates {
	t, err := mail.NewTemplates(mail.TemplatesConfig{Files: mailFS()})
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// rawTemplates is the go-mail side's rendering: the same files parsed with
// text/template and html/template directly.
type rawTemplates struct {
	text *texttemplate.Template
	html *htmltemplate.Template
}

func newRawTemplates(tb testing.TB) *rawTemplates {
	fs := mailFS()
	tt := texttemplate.Must(texttemplate.New("layouts/base.txt").Parse(string(fs["mail/layouts/base.txt"].Data)))
	texttemplate.Must(tt.New("welcome.txt").Parse(string(fs["mail/welcome.txt"].Data)))
	ht := htmltemplate.Must(htmltemplate.New("layouts/base.html").Parse(string(fs["mail/layouts/base.html"].Data)))
	htmltemplate.Must(ht.New("welcome.html").Parse(string(fs["mail/welcome.html"].Data)))
	return &rawTemplates{text: tt, html: ht}
}

func (r *rawTemplates) msg(tb testing.TB) *gomail.Msg {
	var subject, text, html bytes.Buffer
	if err := r.text.ExecuteTemplate(&subject, "subject", welcomeData); err != nil {
		tb.Fatal(err)
	}
	if err := r.text.ExecuteTemplate(&text, "welcome.txt", welcomeData); err != nil {
		tb.Fatal(err)
	}
	if err := r.html.ExecuteTemplate(&html, "welcome.html", welcomeData); err != nil {
		tb.Fatal(err)
	}
	m := gomail.NewMsg()
	if err := m.From("Plinth <noreply@example.com>"); err != nil {
		tb.Fatal(err)
	}
	if err := m.To("zoe@example.com"); err != nil {
		tb.Fatal(err)
	}
	m.Subject(subject.String())
	m.SetBodyString(gomail.TypeTextPlain, strings.TrimLeft(text.String(), "\n"))
	m.AddAlternativeString(gomail.TypeTextHTML, html.String())
	return m
}

func plinthMessage(tb testing.TB, t *mail.Templates) *mail.Message {
	m := &mail.Message{From: "Plinth <noreply@example.com>", To: []string{"zoe@example.com"}}
	if err := t.Render(m, "welcome", "en", welcomeData); err != nil {
		tb.Fatal(err)
	}
	return m
}

func catcher(tb testing.TB) *smtptest.Server {
	return smtptest.New(tb, smtptest.Config{Discard: true})
}

func plinthMailer(tb testing.TB, s *smtptest.Server, maxIdle int) *smtpmail.Mailer {
	m, err := smtpmail.New(smtpmail.Config{Host: s.Host(), Port: s.Port(), TLS: smtpmail.NoTLS, HELO: "bench.local", MaxIdle: maxIdle})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { m.Close() })
	return m
}

func goMailClient(tb testing.TB, s *smtptest.Server) *gomail.Client {
	c, err := gomail.NewClient(s.Host(), gomail.WithPort(s.Port()), gomail.WithTLSPolicy(gomail.NoTLS), gomail.WithHELO("bench.local"))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// BenchmarkMailRender: the templates alone (subject, text, HTML), and the
// MIME form built from the result.
func BenchmarkMailRender(b *testing.B) {
	b.Run("lib=plinth", func(b *testing.B) {
		t := plinthTemplates(b)
		measure(b, func() {
			m := plinthMessage(b, t)
			if _, err := m.WriteTo(io.Discard); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("lib=go-mail", func(b *testing.B) {
		r := newRawTemplates(b)
		measure(b, func() {
			if _, err := r.msg(b).WriteTo(io.Discard); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// BenchmarkMailSend: render and send one message per iteration to the
// catcher, over one reused connection (conn=reused) and over a new
// connection per message (conn=new: dial, greeting, EHLO, then QUIT).
func BenchmarkMailSend(b *testing.B) {
	ctx := context.Background()
	b.Run("conn=reused/lib=plinth", func(b *testing.B) {
		s := catcher(b)
		t := plinthTemplates(b)
		m := plinthMailer(b, s, 0)
		measure(b, func() {
			if err := m.Send(ctx, plinthMessage(b, t)); err != nil {
				b.Fatal(err)
			}
		})
		check(b, s, 1)
	})
	b.Run("conn=reused/lib=go-mail", func(b *testing.B) {
		s := catcher(b)
		r := newRawTemplates(b)
		c := goMailClient(b, s)
		if err := c.DialWithContext(ctx); err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		measure(b, func() {
			if err := c.Send(r.msg(b)); err != nil {
				b.Fatal(err)
			}
		})
		check(b, s, 1)
	})
	b.Run("conn=new/lib=plinth", func(b *testing.B) {
		s := catcher(b)
		t := plinthTemplates(b)
		m := plinthMailer(b, s, -1)
		measure(b, func() {
			if err := m.Send(ctx, plinthMessage(b, t)); err != nil {
				b.Fatal(err)
			}
		})
		check(b, s, 0)
	})
	b.Run("conn=new/lib=go-mail", func(b *testing.B) {
		s := catcher(b)
		r := newRawTemplates(b)
		c := goMailClient(b, s)
		measure(b, func() {
			if err := c.DialAndSendWithContext(ctx, r.msg(b)); err != nil {
				b.Fatal(err)
			}
		})
		check(b, s, 0)
	})
}

// measure runs op b.N times (b.Loop) and reports, besides the wall-clock
// time, the process's CPU time per operation (user and system, the
// catcher's goroutines included: the same for both libraries), which a
// machine busy with other work disturbs much less than the wall clock.
func measure(b *testing.B, op func()) {
	b.ReportAllocs()
	start := cpuTime()
	n := 0
	for b.Loop() {
		op()
		n++
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(n)/1e3, "cpu-µs/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// check fails b unless the catcher got every message, over one connection
// when conns is 1.
func check(b *testing.B, s *smtptest.Server, conns int) {
	b.Helper()
	if s.Count() != b.N {
		b.Fatalf("the catcher got %d messages, want %d", s.Count(), b.N)
	}
	if conns == 1 && s.Connections() != 1 {
		b.Fatalf("%d connections, want 1", s.Connections())
	}
}

// TestMailSidesAgree: both sides' messages reach the catcher with the same
// subject, text and HTML (so the benchmark compares the same work).
func TestMailSidesAgree(t *testing.T) {
	ctx := context.Background()
	s := smtptest.New(t, smtptest.Config{})
	if err := plinthMailer(t, s, 0).Send(ctx, plinthMessage(t, plinthTemplates(t))); err != nil {
		t.Fatal(err)
	}
	if err := goMailClient(t, s).DialAndSendWithContext(ctx, newRawTemplates(t).msg(t)); err != nil {
		t.Fatal(err)
	}
	msgs := s.Messages()
	if len(msgs) != 2 {
		t.Fatalf("%d messages", len(msgs))
	}
	var parsed [2]*parsedMail
	for i, m := range msgs {
		parsed[i] = parse(t, m.Data)
	}
	if *parsed[0] != *parsed[1] {
		t.Fatalf("the sides differ:\nplinth  %+v\ngo-mail %+v", parsed[0], parsed[1])
	}
	if !strings.Contains(parsed[0].HTML, "Zoë &lt;Ünal&gt;") || parsed[0].Subject != "Welcome to Plinth, Zoë <Ünal>" {
		t.Fatalf("content %+v", parsed[0])
	}
}
