// Command smtpcatcher runs the smtptest catcher as a process, for checks
// from outside a Go test (a script that brings its own SMTP server): it
// listens on -addr, prints "listening on HOST:PORT" on standard error, then
// one JSON line per accepted message on standard output, until SIGINT or
// SIGTERM.
//
//	go run ./mail/smtpmail/cmd/smtpcatcher -addr 127.0.0.1:2525 -script 'DATA=451 4.3.0 later;DATA=451 4.3.0 later'
//
// Each line: {"from", "to", "subject", "text", "html", "parts", "tls",
// "auth", "conn", "raw"}: the envelope, the decoded subject, text and HTML
// parts, the multipart/alternative part types, and the message as sent.
// -script queues replies (smtptest.Server.Script): STAGE=REPLY items
// separated by ';', STAGE one of MAIL, RCPT, DATA, in order.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/plinth-go/plinth/mail/mailtest"
	"github.com/plinth-go/plinth/mail/smtpmail/smtptest"
)

type line struct {
	From    string   `json:"from"`
	To      []string `json:"to"`
	Subject string   `json:"subject"`
	Text    string   `json:"text"`
	HTML    string   `json:"html"`
	Parts   []string `json:"parts"`
	TLS     bool     `json:"tls"`
	Auth    string   `json:"auth"`
	Conn    int      `json:"conn"`
	Raw     string   `json:"raw"`
	Error   string   `json:"parse_error,omitempty"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:2525", "address to listen on")
	mode := flag.String("tls", "none", "none, starttls or implicit (a self-signed certificate)")
	user := flag.String("user", "", "the only user AUTH accepts (with -pass); empty: no AUTH")
	pass := flag.String("pass", "", "the password of -user")
	script := flag.String("script", "", "scripted replies: STAGE=REPLY;STAGE=REPLY... (STAGE: MAIL, RCPT, DATA)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout, os.Stderr, *addr, smtptest.TLSMode(*mode), *user, *pass, *script); err != nil {
		fmt.Fprintln(os.Stderr, "smtpcatcher:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, stdout, stderr io.Writer, addr string, mode smtptest.TLSMode, user, pass, script string) error {
	s, err := smtptest.Start(smtptest.Config{Addr: addr, TLS: mode, Username: user, Password: pass})
	if err != nil {
		return err
	}
	defer s.Close()
	for item := range strings.SplitSeq(script, ";") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		stage, reply, ok := strings.Cut(item, "=")
		switch st := smtptest.Stage(strings.ToUpper(stage)); {
		case !ok || len(reply) < 3:
			return fmt.Errorf("-script item %q: want STAGE=REPLY", item)
		case st != smtptest.StageMail && st != smtptest.StageRcpt && st != smtptest.StageData:
			return fmt.Errorf("-script item %q: STAGE is MAIL, RCPT or DATA", item)
		default:
			s.Script(st, reply)
		}
	}
	fmt.Fprintln(stderr, "listening on", s.Addr)
	enc := json.NewEncoder(stdout)
	printed := 0
	for {
		next := s.Notify()
		msgs := s.Messages()
		for _, m := range msgs[printed:] {
			l := line{From: m.From, To: m.To, TLS: m.TLS, Auth: m.Auth, Conn: m.Conn, Raw: string(m.Data)}
			if p, err := mailtest.Parse(m.Data); err != nil {
				l.Error = err.Error()
			} else {
				l.Subject, l.Text, l.HTML, l.Parts = p.Subject, p.Text, p.HTML, p.Alternative
			}
			if err := enc.Encode(l); err != nil {
				return err
			}
		}
		printed = len(msgs)
		select {
		case <-next:
		case <-ctx.Done():
			return nil
		}
	}
}
