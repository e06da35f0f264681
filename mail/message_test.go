package mail_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth/mail"
	"github.com/plinth-go/plinth/mail/mailtest"
)

func valid() *mail.Message {
	return &mail.Message{
		From:    "Plinth <noreply@example.com>",
		To:      []string{"ada@example.com"},
		Subject: "Hello",
		Text:    "Hello, Ada.\n",
	}
}

// TestValidateRefuses: every header injection and missing part is an error
// wrapping ErrInvalid, and a Memory transport records nothing.
func TestValidateRefuses(t *testing.T) {
	cases := []struct {
		name   string
		modify func(m *mail.Message)
		want   string
	}{
		{"CRLF in Subject", func(m *mail.Message) { m.Subject = "Hi\r\nBcc: victim@example.com" }, "Subject"},
		{"LF in Subject", func(m *mail.Message) { m.Subject = "Hi\nX: y" }, "Subject"},
		{"CR in Subject", func(m *mail.Message) { m.Subject = "Hi\rX: y" }, "Subject"},
		{"NUL in Subject", func(m *mail.Message) { m.Subject = "Hi\x00" }, "Subject"},
		{"CRLF in From's name", func(m *mail.Message) { m.From = "Eve\r\nBcc: x@example.com <eve@example.com>" }, "From"},
		{"CRLF in To", func(m *mail.Message) { m.To = []string{"ada@example.com\r\nBcc: x@example.com"} }, "To"},
		{"LF in Cc", func(m *mail.Message) { m.Cc = []string{"b@example.com\n"} }, "Cc"},
		{"NUL in Bcc", func(m *mail.Message) { m.Bcc = []string{"b@example.com\x00"} }, "Bcc"},
		{"CRLF in ReplyTo", func(m *mail.Message) { m.ReplyTo = "r@example.com\r\nX: y" }, "ReplyTo"},
		{"CRLF in a header value", func(m *mail.Message) { m.Headers = map[string]string{"X-Tag": "a\r\nBcc: x@example.com"} }, "X-Tag"},
		{"colon in a header name", func(m *mail.Message) { m.Headers = map[string]string{"X:Tag": "a"} }, "field name"},
		{"space in a header name", func(m *mail.Message) { m.Headers = map[string]string{"X Tag": "a"} }, "field name"},
		{"reserved header Bcc", func(m *mail.Message) { m.Headers = map[string]string{"bcc": "x@example.com"} }, "set by the message"},
		{"reserved header Content-Type", func(m *mail.Message) { m.Headers = map[string]string{"Content-Type": "text/html"} }, "set by the message"},
		{"CRLF in an attachment name", func(m *mail.Message) {
			m.Attachments = []mail.Attachment{{Filename: "a.txt\r\nX: y", Data: []byte("x")}}
		}, "Filename"},
		{"bad attachment type", func(m *mail.Message) {
			m.Attachments = []mail.Attachment{{Filename: "a.txt", ContentType: "text/", Data: []byte("x")}}
		}, "ContentType"},
		{"no From", func(m *mail.Message) { m.From = "" }, "no From"},
		{"empty To", func(m *mail.Message) { m.To = nil }, "no To"},
		{"unparsable To", func(m *mail.Message) { m.To = []string{"not an address"} }, "To"},
		{"two addresses in one To element", func(m *mail.Message) { m.To = []string{"a@example.com, b@example.com"} }, "To"},
		{"no text", func(m *mail.Message) { m.Text = ""; m.HTML = "<p>hi</p>" }, "no Text"},
		{"bad Message-ID", func(m *mail.Message) { m.MessageID = "<a b@c>" }, "MessageID"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := valid()
			tc.modify(m)
			err := m.Validate()
			if !errors.Is(err, mail.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want ErrInvalid naming %q", err, tc.want)
			}
			if !mail.IsPermanent(err) {
				t.Errorf("IsPermanent(%v) = false", err)
			}
			mem := mailtest.New()
			if err := mem.Send(context.Background(), m); !errors.Is(err, mail.ErrInvalid) {
				t.Fatalf("Memory.Send = %v, want ErrInvalid", err)
			}
			mailtest.Count(t, mem, 0)
			if _, err := m.Bytes(); !errors.Is(err, mail.ErrInvalid) {
				t.Fatalf("Bytes = %v, want ErrInvalid", err)
			}
			if err := (&mail.LogMailer{}).Send(context.Background(), m); !errors.Is(err, mail.ErrInvalid) {
				t.Fatalf("LogMailer.Send = %v, want ErrInvalid", err)
			}
		})
	}
}

// TestMIMEAlternative: text then HTML, UTF-8 subject RFC 2047-encoded,
// Date and Message-ID, no Bcc header, the name in From encoded.
func TestMIMEAlternative(t *testing.T) {
	m := valid()
	m.From = "Zoë Ünal <zoe@example.com>"
	m.Cc = []string{"cc@example.com"}
	m.Bcc = []string{"hidden@example.com"}
	m.ReplyTo = "help@example.com"
	m.Subject = "Bienvenue, Zoë — ça marche ✓"
	m.Text = "Bonjour Zoë,\nune ligne très longue " + strings.Repeat("é", 100) + "\n"
	m.HTML = "<p>Bonjour <b>Zoë</b></p>"
	m.Headers = map[string]string{"List-Unsubscribe": "<https://example.com/u>", "X-Note": "déjà"}
	raw, err := m.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
	for _, line := range strings.Split(string(head), "\r\n") {
		if len(line) > 78 {
			t.Errorf("header line of %d characters: %q", len(line), line)
		}
		for _, c := range []byte(line) {
			if c >= 0x80 {
				t.Fatalf("non-ASCII byte in the header: %q", line)
			}
		}
	}
	if bytes.Contains(raw, []byte("hidden@example.com")) {
		t.Error("the Bcc address is in the message")
	}
	if !bytes.Contains(head, []byte("=?utf-8?q?")) {
		t.Errorf("subject not RFC 2047-encoded:\n%s", head)
	}
	for _, line := range bytes.Split(raw, []byte("\r\n")) {
		if bytes.IndexByte(line, '\n') >= 0 {
			t.Fatalf("bare LF in %q", line)
		}
		if len(line) > 78 {
			t.Fatalf("line of %d characters in the body: %q", len(line), line)
		}
	}
	p, err := mailtest.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if p.Subject != m.Subject {
		t.Errorf("subject %q, want %q", p.Subject, m.Subject)
	}
	if p.ContentType != "multipart/alternative" || len(p.Alternative) != 2 || p.Alternative[0] != "text/plain" || p.Alternative[1] != "text/html" {
		t.Errorf("structure %s %v, want multipart/alternative [text/plain text/html]", p.ContentType, p.Alternative)
	}
	if want := strings.ReplaceAll(m.Text, "\n", "\r\n"); p.Text != want {
		t.Errorf("text %q, want %q", p.Text, want)
	}
	if !strings.HasPrefix(p.HTML, m.HTML) {
		t.Errorf("html %q, want %q", p.HTML, m.HTML)
	}
	from, err := p.Header.AddressList("From")
	if err != nil || len(from) != 1 || from[0].Name != "Zoë Ünal" || from[0].Address != "zoe@example.com" {
		t.Errorf("From = %v, %v", from, err)
	}
	if d, err := p.Header.Date(); err != nil || time.Since(d) > time.Minute {
		t.Errorf("Date = %v, %v", d, err)
	}
	if id := p.Header.Get("Message-Id"); !strings.HasSuffix(id, "@example.com>") || !strings.HasPrefix(id, "<") {
		t.Errorf("Message-ID = %q", id)
	}
	if got := p.Header.Get("X-Note"); got == "déjà" || got == "" {
		t.Errorf("X-Note sent as %q, want it encoded", got)
	}
	for name, want := range map[string]string{"Reply-To": "<help@example.com>", "Cc": "<cc@example.com>", "Mime-Version": "1.0", "List-Unsubscribe": "<https://example.com/u>"} {
		if got := p.Header.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// TestMIMETextOnlyAndAttachments: a text-only message is one text/plain
// part; attachments make it multipart/mixed with the data intact.
func TestMIMETextOnlyAndAttachments(t *testing.T) {
	m := valid()
	raw, err := m.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	p, err := mailtest.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if p.ContentType != "text/plain" || p.Text != "Hello, Ada.\r\n" || p.HTML != "" {
		t.Fatalf("text-only: %s %q %q", p.ContentType, p.Text, p.HTML)
	}

	data := bytes.Repeat([]byte{0, 1, 2, 0xff, 'a'}, 100)
	m.HTML = "<p>Hi</p>"
	m.Attachments = []mail.Attachment{{Filename: "report é.pdf", Data: data}, {Filename: "notes", ContentType: "text/plain; charset=utf-8", Data: []byte("n")}}
	raw, err = m.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if p, err = mailtest.Parse(raw); err != nil {
		t.Fatal(err)
	}
	if p.ContentType != "multipart/mixed" || p.Text != "Hello, Ada.\r\n" || !strings.HasPrefix(p.HTML, "<p>Hi</p>") || len(p.Alternative) != 2 {
		t.Fatalf("mixed: %s %q %q %v", p.ContentType, p.Text, p.HTML, p.Alternative)
	}
	if len(p.Attachments) != 2 {
		t.Fatalf("%d attachments, want 2", len(p.Attachments))
	}
	a := p.Attachments[0]
	if a.Filename != "report é.pdf" || a.ContentType != "application/pdf" || !bytes.Equal(a.Data, data) {
		t.Errorf("attachment 0: %q %q %d bytes (equal %v)", a.Filename, a.ContentType, len(a.Data), bytes.Equal(a.Data, data))
	}
	if b := p.Attachments[1]; b.ContentType != "text/plain; charset=utf-8" || string(b.Data) != "n" {
		t.Errorf("attachment 1: %q %q", b.ContentType, b.Data)
	}
}

// TestFixedDateAndID: a set Date and MessageID are sent as given (what
// Queued relies on for identical retries).
func TestFixedDateAndID(t *testing.T) {
	m := valid()
	m.Date = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m.MessageID = "<fixed@example.com>"
	a, err := m.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := m.Bytes()
	if !bytes.Equal(a, b) {
		t.Fatal("two builds of a text-only message with fixed Date and MessageID differ")
	}
	if !bytes.Contains(a, []byte("Date: Fri, 02 Jan 2026 03:04:05 +0000\r\nMessage-ID: <fixed@example.com>\r\n")) {
		t.Fatalf("header:\n%s", a)
	}
}

// TestHeaderInjectionThroughNameIsEncoded: a display name with quotes and
// commas stays one address.
func TestDisplayNameQuoted(t *testing.T) {
	m := valid()
	m.To = []string{`"Doe, John (x@evil.example)" <john@example.com>`}
	env, err := m.Envelope()
	if err != nil {
		t.Fatal(err)
	}
	if len(env.To) != 1 || env.To[0] != "john@example.com" {
		t.Fatalf("envelope %v", env.To)
	}
	raw, _ := m.Bytes()
	p, _ := mailtest.Parse(raw)
	to, err := p.Header.AddressList("To")
	if err != nil || len(to) != 1 || to[0].Address != "john@example.com" {
		t.Fatalf("To = %v, %v", to, err)
	}
}

func TestEnvelopeDeduplicates(t *testing.T) {
	m := valid()
	m.Cc = []string{"ADA@example.com", "b@example.com"}
	m.Bcc = []string{"b@example.com", "c@example.com"}
	env, err := m.Envelope()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(env.To, ","); got != "ada@example.com,b@example.com,c@example.com" || env.From != "noreply@example.com" {
		t.Fatalf("envelope %s → %s", env.From, got)
	}
}

func TestPermanent(t *testing.T) {
	base := errors.New("550 no such user")
	if mail.IsPermanent(base) || mail.IsPermanent(nil) || mail.Permanent(nil) != nil {
		t.Fatal("plain error or nil counted as permanent")
	}
	wrapped := errors.Join(errors.New("ctx"), mail.Permanent(base))
	if !mail.IsPermanent(wrapped) || !errors.Is(wrapped, base) {
		t.Fatalf("IsPermanent(%v) = false or base lost", wrapped)
	}
}

// TestLongSubjectFolds: a long UTF-8 subject becomes several encoded words
// on folded lines of at most 78 characters, and reads back whole.
func TestLongSubjectFolds(t *testing.T) {
	m := valid()
	m.Subject = strings.Repeat("Zoë a reçu un message très long ", 12)
	m.Headers = map[string]string{"X-Long": strings.Repeat("word ", 40)}
	raw, err := m.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
	for _, line := range strings.Split(string(head), "\r\n") {
		if len(line) > 78 {
			t.Errorf("header line of %d characters: %q", len(line), line)
		}
	}
	p, err := mailtest.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if p.Subject != m.Subject {
		t.Fatalf("subject read back as %q", p.Subject)
	}
	if got := p.Header.Get("X-Long"); strings.Join(strings.Fields(got), " ") != strings.TrimSpace(m.Headers["X-Long"]) {
		t.Fatalf("X-Long read back as %q", got)
	}
}
