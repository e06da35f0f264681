package mail_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/mail"
	"github.com/plinth-go/plinth/mail/mailtest"
)

// envelopeCase is one address of the envelope tables, shared with the
// SMTP module's end-to-end test by copy (the modules share no test code).
type envelopeCase struct {
	in   string // the address as a Message field holds it
	wire string // its envelope form; "" when it is refused
	want string // a word of the error when it is refused
}

// envelopeCases are hostile and odd addresses: the wire form of each one
// accepted, a word of the error for each one refused.
var envelopeCases = []envelopeCase{
	// an outside attack: a quoted local part carrying a parameter
	{in: `"attacker@evil.example> ORCPT=rfc822;x"@corp.example`, want: "cannot carry safely"},
	{in: `"attacker@evil.example>"@corp.example`, want: `"@"`},
	{in: `"a>b"@corp.example`, want: `">"`},
	{in: `"<a"@corp.example`, want: `"<"`},
	{in: `"a b"@corp.example`, want: "a space"},
	{in: `"a\"b"@corp.example`, want: `"\""`},
	{in: `"a\\b"@corp.example`, want: `"\\"`},
	{in: `"a,b"@corp.example`, want: `","`},
	{in: `"a:b"@corp.example`, want: `":"`},
	{in: `"a\	b"@corp.example`, want: "control byte 0x09"},
	{in: `<a b@corp.example>`, want: "To"},
	{in: `a b@corp.example`, want: "To"},
	{in: `a@corp.example>`, want: "To"},
	{in: `(comment)a@corp.example`, want: "To"},
	{in: `a@`, want: "To"},
	{in: `a`, want: "To"},
	{in: `@corp.example`, want: "To"},
	{in: `zoë@corp.example`, want: "non-ASCII"},
	{in: `a@zoë.example`, want: "xn--"},
	{in: `a@x_y.example`, want: `"_"`},
	{in: `a@-corp.example`, want: "'-'"},
	{in: `a@corp-.example`, want: "'-'"},
	{in: `a@` + strings.Repeat("x", 64) + `.example`, want: "63 octets"},
	{in: strings.Repeat("x", 65) + `@corp.example`, want: "64 RFC 5321 allows"},
	{in: `"` + strings.Repeat("x", 63) + `."@corp.example`, want: "64 RFC 5321 allows"},
	{in: `a@` + strings.Repeat("abcdefghi.", 26) + `example`, want: "255 RFC 5321 allows"},
	{in: strings.Repeat("x", 64) + `@` + strings.Repeat("abcdefghi.", 19) + `example`, want: "an SMTP path carries"},
	{in: `a@[1.2.3]`, want: "To"},
	{in: `a@[::1]`, want: "IPv4"},
	{in: `a@[IPv6:::1]`, want: "To"},

	// accepted, written as RFC 5321 wants them
	{in: `ada@corp.example`, wire: `ada@corp.example`},
	{in: `Ada Lovelace <ada@corp.example>`, wire: `ada@corp.example`},
	{in: `ada@corp.example (comment)`, wire: `ada@corp.example`},
	{in: `"ada"@corp.example`, wire: `ada@corp.example`},
	{in: `"john..doe"@corp.example`, wire: `"john..doe"@corp.example`},
	{in: `".x"@corp.example`, wire: `".x"@corp.example`},
	{in: `o'brien+tag=1/x@corp.example`, wire: `o'brien+tag=1/x@corp.example`},
	{in: `Zoë <zoe@xn--zo-9ja.example>`, wire: `zoe@xn--zo-9ja.example`},
	{in: `a@[192.0.2.1]`, wire: `a@[192.0.2.1]`},
	{in: `a@localhost`, wire: `a@localhost`},
	{in: strings.Repeat("x", 64) + `@corp.example`, wire: strings.Repeat("x", 64) + `@corp.example`},
	{in: `a@` + strings.Repeat("abcdefghi.", 24) + `example`, wire: `a@` + strings.Repeat("abcdefghi.", 24) + `example`},
}

// TestEnvelopeAddresses: an address that reaches MAIL FROM or RCPT TO is
// checked by RFC 5321's rules, in From, To, Cc and Bcc alike: a refused one
// is an error wrapping ErrInvalid and nothing is sent; an accepted one is
// in the envelope in its RFC 5321 form, never with a space, '<' or '>'.
func TestEnvelopeAddresses(t *testing.T) {
	fields := map[string]func(m *mail.Message, a string){
		"From": func(m *mail.Message, a string) { m.From = a },
		"To":   func(m *mail.Message, a string) { m.To = []string{a} },
		"Cc":   func(m *mail.Message, a string) { m.Cc = []string{a} },
		"Bcc":  func(m *mail.Message, a string) { m.Bcc = []string{a} },
	}
	for _, tc := range envelopeCases {
		for field, set := range fields {
			t.Run(field+" "+tc.in, func(t *testing.T) {
				m := valid()
				set(m, tc.in)
				env, err := m.Envelope()
				if tc.wire == "" {
					want := tc.want
					if want == "To" {
						want = field // net/mail's own refusal, naming the field
					}
					if !errors.Is(err, mail.ErrInvalid) || !strings.Contains(err.Error(), field) || !strings.Contains(err.Error(), want) {
						t.Fatalf("Envelope() = %v, want ErrInvalid naming %s and %q", err, field, want)
					}
					mem := mailtest.New()
					if err := mem.Send(context.Background(), m); !errors.Is(err, mail.ErrInvalid) {
						t.Fatalf("Memory.Send = %v, want ErrInvalid", err)
					}
					mailtest.Count(t, mem, 0)
					return
				}
				if err != nil {
					t.Fatalf("Envelope() = %v", err)
				}
				got := env.From
				if field != "From" {
					got = env.To[len(env.To)-1]
				}
				if got != tc.wire {
					t.Fatalf("envelope %s = %q, want %q", field, got, tc.wire)
				}
				for _, a := range append([]string{env.From}, env.To...) {
					if strings.ContainsAny(a, " <>\r\n\x00") {
						t.Fatalf("envelope address %q holds a space or angle bracket", a)
					}
				}
			})
		}
	}
}

// TestReplyToIsNotInTheEnvelope: ReplyTo only reaches a header, where
// net/mail quotes it, so an address the envelope refuses is accepted there
// and written quoted.
func TestReplyToIsNotInTheEnvelope(t *testing.T) {
	m := valid()
	m.ReplyTo = `"a b"@corp.example`
	raw, err := m.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "Reply-To: <\"a b\"@corp.example>\r\n") {
		t.Fatalf("message:\n%s", raw)
	}
}
