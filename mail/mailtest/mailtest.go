// Package mailtest helps test code that sends mail: assertions on a
// mail.Memory transport (Count, Last, Has, with the matchers To and
// Subject: the vocabulary of jobstest and docs/testing.md), and Parse, which reads a message's MIME form
// (from Memory.Raw, or from an SMTP catcher such as mail/smtpmail/smtptest)
// back into its subject, text, HTML and attachments.
package mailtest

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"testing"

	plinthmail "github.com/plinth-go/plinth/mail"
)

// New returns an empty Memory transport.
func New() *plinthmail.Memory { return &plinthmail.Memory{} }

// Count fails t unless mem has recorded exactly n messages, and returns
// them.
func Count(t testing.TB, mem *plinthmail.Memory, n int) []*plinthmail.Message {
	t.Helper()
	sent := mem.Sent()
	if len(sent) != n {
		t.Fatalf("mailtest: %d messages sent, want %d%s", len(sent), n, summary(sent))
	}
	return sent
}

// Last fails t when mem has recorded no message, and returns the last one.
func Last(t testing.TB, mem *plinthmail.Memory) *plinthmail.Message {
	t.Helper()
	sent := mem.Sent()
	if len(sent) == 0 {
		t.Fatalf("mailtest: no message sent")
		return nil
	}
	return sent[len(sent)-1]
}

// Has fails t unless mem has recorded a message that satisfies every
// match (none: any message), and returns the first such message, in the
// order sent.
func Has(t testing.TB, mem *plinthmail.Memory, match ...func(*plinthmail.Message) bool) *plinthmail.Message {
	t.Helper()
	sent := mem.Sent()
next:
	for _, m := range sent {
		for _, ok := range match {
			if !ok(m) {
				continue next
			}
		}
		return m
	}
	if len(sent) == 0 {
		t.Fatalf("mailtest: no message sent")
	} else {
		t.Fatalf("mailtest: none of the %d messages sent matches%s", len(sent), summary(sent))
	}
	return nil
}

// To matches a message that has addr (compared without case) among its
// To, Cc or Bcc addresses, for Has.
func To(addr string) func(*plinthmail.Message) bool {
	return func(m *plinthmail.Message) bool {
		env, err := m.Envelope()
		if err != nil {
			return false
		}
		for _, a := range env.To {
			if strings.EqualFold(a, addr) {
				return true
			}
		}
		return false
	}
}

// Subject matches a message whose Subject is subject, for Has.
func Subject(subject string) func(*plinthmail.Message) bool {
	return func(m *plinthmail.Message) bool { return m.Subject == subject }
}

func summary(sent []*plinthmail.Message) string {
	if len(sent) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("; sent:")
	for _, m := range sent {
		fmt.Fprintf(&b, "\n\tto %v: %q", m.To, m.Subject)
	}
	return b.String()
}

// Parsed is a message read back from its MIME form.
type Parsed struct {
	// Header is the message's header, as net/mail reads it.
	Header mail.Header
	// Subject is the decoded Subject (RFC 2047 words decoded).
	Subject string
	// ContentType is the top-level media type ("multipart/alternative").
	ContentType string
	// Text and HTML are the decoded text/plain and text/html parts.
	Text, HTML string
	// Alternative lists the media types of the multipart/alternative
	// parts, in order; nil when the message is not multipart/alternative.
	Alternative []string
	// Attachments are the parts with Content-Disposition attachment.
	Attachments []plinthmail.Attachment
}

// Parse reads a message's MIME form: its header, the decoded subject,
// text and HTML parts (quoted-printable or base64 undone) and attachments.
func Parse(raw []byte) (*Parsed, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("mailtest: %w", err)
	}
	p := &Parsed{Header: msg.Header}
	dec := new(mime.WordDecoder)
	if p.Subject, err = dec.DecodeHeader(msg.Header.Get("Subject")); err != nil {
		return nil, fmt.Errorf("mailtest: Subject: %w", err)
	}
	ct := msg.Header.Get("Content-Type")
	if ct == "" {
		ct = "text/plain"
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return nil, fmt.Errorf("mailtest: Content-Type %q: %w", ct, err)
	}
	p.ContentType = mt
	return p, p.part(ct, msg.Header.Get("Content-Transfer-Encoding"), "", msg.Body, 0)
}

// part reads one part (recursively for multipart ones).
func (p *Parsed) part(ct, cte, disposition string, body io.Reader, depth int) error {
	if depth > 8 {
		return fmt.Errorf("mailtest: multipart nesting deeper than 8")
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return fmt.Errorf("mailtest: Content-Type %q: %w", ct, err)
	}
	if strings.HasPrefix(mt, "multipart/") {
		r := multipart.NewReader(body, params["boundary"])
		for {
			part, err := r.NextRawPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("mailtest: %s: %w", mt, err)
			}
			pct := part.Header.Get("Content-Type")
			if pct == "" {
				pct = "text/plain"
			}
			if mt == "multipart/alternative" {
				amt, _, _ := mime.ParseMediaType(pct)
				p.Alternative = append(p.Alternative, amt)
			}
			if err := p.part(pct, part.Header.Get("Content-Transfer-Encoding"), part.Header.Get("Content-Disposition"), part, depth+1); err != nil {
				return err
			}
		}
	}
	var r io.Reader = body
	switch strings.ToLower(cte) {
	case "quoted-printable":
		r = quotedprintable.NewReader(body)
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, body) // it skips line breaks
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("mailtest: %s part: %w", mt, err)
	}
	if d, dp, err := mime.ParseMediaType(disposition); err == nil && d == "attachment" {
		p.Attachments = append(p.Attachments, plinthmail.Attachment{Filename: dp["filename"], ContentType: ct, Data: data})
		return nil
	}
	switch mt {
	case "text/plain":
		p.Text = string(data)
	case "text/html":
		p.HTML = string(data)
	}
	return nil
}
