package mail_test

import (
	"bytes"
	"net/mail"
	"strings"
	"testing"
	"unicode/utf8"

	plinthmail "github.com/plinth-go/plinth/mail"
	"github.com/plinth-go/plinth/mail/mailtest"
)

// FuzzMessage: whatever the subject, display name, header value and parts,
// a message either fails Validate or builds into a MIME form whose header
// has exactly the fields Plinth wrote (no injected one), every line within
// 998 bytes and ending in CRLF, and that reads back to the same subject,
// text and HTML.
func FuzzMessage(f *testing.F) {
	f.Add("Hello", "Ada", "x-value", "text\n", "<p>html</p>")
	f.Add("Hi\r\nBcc: victim@example.com", "Eve", "v", "t", "")
	f.Add("Bienvenue, Zoë ✓", "Zoë \"the\" Ünal", "déjà vu", "ligne\r\n.\r\nfin", "<b>Zoë</b>")
	f.Add(strings.Repeat("long subject ", 30), "N", strings.Repeat("w ", 200), strings.Repeat("é", 500), "")
	f.Add("a\x00b", "x", "y", "z", "")
	f.Add("=?utf-8?q?encoded?=", "<>,;:", "a: b", "\r", "\n")
	f.Fuzz(func(t *testing.T, subject, name, value, text, html string) {
		if !utf8.ValidString(subject) || !utf8.ValidString(name) || !utf8.ValidString(value) {
			return
		}
		m := &plinthmail.Message{
			From:    (&mail.Address{Name: name, Address: "from@example.com"}).String(),
			To:      []string{"to@example.com"},
			Subject: subject,
			Text:    text,
			HTML:    html,
			Headers: map[string]string{"X-Fuzz": value},
		}
		raw, err := m.Bytes()
		if err != nil {
			return
		}
		head, _, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
		if !ok {
			t.Fatalf("no end of header in %q", raw)
		}
		want := map[string]bool{"Date": true, "Message-Id": true, "From": true, "To": true, "Subject": subject != "", "Mime-Version": true, "X-Fuzz": true, "Content-Type": true, "Content-Transfer-Encoding": html == ""}
		for _, line := range strings.Split(string(head), "\r\n") {
			if line == "" || line[0] == ' ' || line[0] == '\t' {
				continue
			}
			field, _, _ := strings.Cut(line, ":")
			canon := canonicalName(field)
			if !want[canon] {
				t.Fatalf("unexpected header field %q in\n%s", field, head)
			}
			delete(want, canon)
		}
		for _, line := range bytes.SplitAfter(raw, []byte("\n")) {
			if len(line) > 1000 {
				t.Fatalf("line of %d bytes", len(line))
			}
			if len(line) > 0 && (line[len(line)-1] != '\n' || len(line) < 2 || line[len(line)-2] != '\r') && !bytes.Equal(line, raw[len(raw)-len(line):]) {
				t.Fatalf("line without CRLF: %q", line)
			}
		}
		p, err := mailtest.Parse(raw)
		if err != nil {
			t.Fatalf("Parse: %v\n%s", err, raw)
		}
		// Unfolding may merge the spaces around a fold and trims the ends:
		// whitespace is compared as runs.
		if strings.Join(strings.Fields(p.Subject), " ") != strings.Join(strings.Fields(subject), " ") {
			t.Fatalf("subject %q read back as %q", subject, p.Subject)
		}
		if norm(p.Text) != norm(text) || norm(p.HTML) != norm(html) {
			t.Fatalf("parts %q %q read back as %q %q", text, html, p.Text, p.HTML)
		}
	})
}

// canonicalName canonicalises a header name.
func canonicalName(s string) string {
	b := []byte(strings.ToLower(s))
	up := true
	for i, c := range b {
		if up && 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
		up = c == '-'
	}
	return string(b)
}

// norm makes line breaks CRLF, as the quoted-printable writer does.
func norm(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.ReplaceAll(s, "\n", "\r\n")
}
