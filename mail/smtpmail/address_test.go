package smtpmail_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/mail"
	"github.com/plinth-go/plinth/mail/smtpmail"
	"github.com/plinth-go/plinth/mail/smtpmail/smtptest"
)

// TestEnvelopeOnTheWire: what the server receives in MAIL FROM and RCPT TO
// for hostile and odd addresses. The outside attack, a quoted local
// part carrying a parameter, reached the wire as
// RCPT TO:<attacker@evil.example> ORCPT=rfc822;x@corp.example>; now it and
// every address RFC 5321 cannot carry safely is refused before a
// connection is made, and an accepted one arrives in its RFC 5321 form (a
// local part that is not a Dot-string quoted), one path per command, no
// space or parameter after it.
func TestEnvelopeOnTheWire(t *testing.T) {
	cases := []struct {
		in   string
		wire string // "" when refused
	}{
		{in: `"attacker@evil.example> ORCPT=rfc822;x"@corp.example`},
		{in: `"attacker@evil.example>"@corp.example`},
		{in: `"a>b"@corp.example`},
		{in: `"a b"@corp.example`},
		{in: `"a\"b"@corp.example`},
		{in: `"a\\b"@corp.example`},
		{in: `a@corp.example> NOTIFY=NEVER`},
		{in: `zoë@corp.example`},
		{in: `a@zoë.example`},
		{in: `a@`},
		{in: strings.Repeat("x", 65) + "@corp.example"},
		{in: "a@" + strings.Repeat("abcdefghi.", 26) + "example"},

		{in: `Ada <ada@corp.example>`, wire: `ada@corp.example`},
		{in: `ada@corp.example (comment)`, wire: `ada@corp.example`},
		{in: `"ada"@corp.example`, wire: `ada@corp.example`},
		{in: `"john..doe"@corp.example`, wire: `"john..doe"@corp.example`},
		{in: `o'brien+tag=1@corp.example`, wire: `o'brien+tag=1@corp.example`},
		{in: `a@[192.0.2.1]`, wire: `a@[192.0.2.1]`},
	}
	for _, tc := range cases {
		for _, field := range []string{"From", "To", "Bcc"} {
			t.Run(field+" "+tc.in, func(t *testing.T) {
				s := smtptest.New(t, smtptest.Config{})
				m := newMailer(t, s, smtpmail.NoTLS, "", "")
				msg := &mail.Message{From: "noreply@example.com", To: []string{"ada@example.com"}, Subject: "Hi", Text: "Hi\n"}
				switch field {
				case "From":
					msg.From = tc.in
				case "To":
					msg.To = []string{tc.in}
				case "Bcc":
					msg.Bcc = []string{tc.in}
				}
				err := m.Send(context.Background(), msg)
				if tc.wire == "" {
					if !errors.Is(err, mail.ErrInvalid) || !mail.IsPermanent(err) || !strings.Contains(err.Error(), field) {
						t.Fatalf("Send = %v, want ErrInvalid naming %s", err, field)
					}
					if s.Connections() != 0 || len(s.Commands()) != 0 || len(s.Messages()) != 0 {
						t.Fatalf("%d connections, commands %q, %d messages: want none", s.Connections(), s.Commands(), len(s.Messages()))
					}
					return
				}
				if err != nil {
					t.Fatalf("Send = %v", err)
				}
				from, to := "noreply@example.com", []string{"ada@example.com"}
				switch field {
				case "From":
					from = tc.wire
				case "To":
					to = []string{tc.wire}
				case "Bcc":
					to = append(to, tc.wire)
				}
				var want []string
				want = append(want, "MAIL FROM:<"+from+"> BODY=8BITMIME")
				for _, a := range to {
					want = append(want, "RCPT TO:<"+a+">")
				}
				var got []string
				for _, c := range s.Commands() {
					if strings.HasPrefix(c, "MAIL ") || strings.HasPrefix(c, "RCPT ") {
						got = append(got, c)
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("commands\n%q\nwant\n%q", got, want)
				}
				msgs := s.Messages()
				if len(msgs) != 1 || msgs[0].From != from || !slices.Equal(msgs[0].To, to) {
					t.Fatalf("caught %+v, want from %s to %v", msgs, from, to)
				}
			})
		}
	}
}
