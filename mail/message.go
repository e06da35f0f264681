package mail

import (
	"fmt"
	"mime"
	"net/mail"
	"path"
	"slices"
	"strings"
	"time"
)

// Message is one mail. The zero value is not sendable: From, at least one
// To and Text are required (Validate). A Message is plain data; it is
// encoded as JSON when it goes through the queue (Queued), so its fields
// carry JSON names.
type Message struct {
	// From is the sender, an RFC 5322 address as net/mail parses it:
	// "ada@example.com" or "Ada Lovelace <ada@example.com>". Required,
	// unless the Mailer fills a default (Config.From, PLINTH_MAIL_FROM).
	From string `json:"from,omitempty"`
	// To, Cc and Bcc are the recipients, one address per element. To needs
	// at least one. Bcc recipients get the message without a Bcc header.
	To  []string `json:"to,omitempty"`
	Cc  []string `json:"cc,omitempty"`
	Bcc []string `json:"bcc,omitempty"`
	// ReplyTo, when set, is the Reply-To address.
	ReplyTo string `json:"reply_to,omitempty"`
	// Subject is the subject, any UTF-8 text on one line; non-ASCII text
	// is RFC 2047-encoded. Default empty.
	Subject string `json:"subject,omitempty"`
	// Text is the plain-text part. Required: every mail has one, for the
	// readers that show no HTML and for spam filters that score its
	// absence.
	Text string `json:"text,omitempty"`
	// HTML, when set, is the HTML part: the message is then
	// multipart/alternative, text first and HTML second, so that a reader
	// shows the HTML and falls back to the text.
	HTML string `json:"html,omitempty"`
	// Headers are extra header fields ("List-Unsubscribe", "X-Campaign").
	// A name must be an RFC 5322 field name and not one the fields above
	// or the MIME structure set (From, To, Cc, Bcc, Reply-To, Subject,
	// Date, Message-ID, MIME-Version, Content-*). Non-ASCII values are
	// RFC 2047-encoded.
	Headers map[string]string `json:"headers,omitempty"`
	// Attachments are sent as parts of a multipart/mixed message after
	// the text (and HTML). Default none.
	Attachments []Attachment `json:"attachments,omitempty"`
	// Date is the Date header. Default the time the message is built.
	Date time.Time `json:"date,omitzero"`
	// MessageID is the Message-ID header, "<id@domain>". Default a random
	// one at the From address's domain, made when the message is built.
	// Queued sets both at enqueue time, so that every attempt of a queued
	// message sends the same Message-ID and a receiver can drop a
	// duplicate (delivery through the queue is at least once).
	MessageID string `json:"message_id,omitempty"`
}

// Attachment is a file attached to a Message.
type Attachment struct {
	// Filename is the name the reader shows. Required.
	Filename string `json:"filename"`
	// ContentType is the file's media type. Default the type of the
	// filename's extension (mime.TypeByExtension), else
	// application/octet-stream.
	ContentType string `json:"content_type,omitempty"`
	// Data is the file's content, sent base64-encoded.
	Data []byte `json:"data"`
}

// reserved are the header names Message's fields and the MIME structure
// set, in canonical form.
var reserved = map[string]bool{
	"From": true, "To": true, "Cc": true, "Bcc": true, "Reply-To": true, "Subject": true,
	"Date": true, "Message-Id": true, "Mime-Version": true, "Sender": true, "Return-Path": true,
}

// Envelope is the SMTP envelope of a validated message: the bare sender
// address and every recipient's (To, Cc, Bcc, without duplicates), each
// in its RFC 5321 form, ready to be written between the angle brackets of
// MAIL FROM:<...> and RCPT TO:<...>: ASCII, no space, '<', '>' or
// parameter, a local part that is not a Dot-string quoted
// ("\"john..doe\"@example.com").
type Envelope struct {
	// From is the reverse-path's mailbox, From's address.
	From string
	// To are the forward-paths' mailboxes, in order, compared without
	// case for duplicates.
	To []string
}

// Validate checks m before anything is sent and returns every problem in
// one error wrapping ErrInvalid: a CR, LF or NUL in any header or
// address (a header injection), an address net/mail does not parse, a
// From, To, Cc or Bcc address an SMTP envelope cannot carry safely (RFC
// 5321's Mailbox: a local part of letters, digits, dots and
// !#$%&'*+-/=?^_`{|}~, so never a space, '<', '>' or '"' even quoted, at
// most 64 octets; a host name of letter-digit-hyphen labels or an
// [IPv4] literal, at most 255 octets; ASCII only), no From,
// no To, an empty Text, a header name that is not a field name or is
// reserved, an attachment without a filename or with a bad content type.
// Every Mailer of this package and of mail/smtpmail calls it first.
func (m *Message) Validate() error {
	_, err := m.check()
	return err
}

// Envelope validates m and returns its SMTP envelope.
func (m *Message) Envelope() (Envelope, error) {
	p, err := m.check()
	if err != nil {
		return Envelope{}, err
	}
	return p.envelope, nil
}

// parsed is a validated message's addresses, rendered for the headers.
type parsed struct {
	from     *mail.Address
	replyTo  *mail.Address
	to, cc   []*mail.Address
	envelope Envelope
}

// check validates m and parses its addresses.
func (m *Message) check() (*parsed, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: nil message", ErrInvalid)
	}
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	p := &parsed{}
	addr := func(field, s string) *mail.Address {
		if badHeaderByte(s) {
			fail("%s %q contains a CR, LF or NUL", field, s)
			return nil
		}
		a, err := mail.ParseAddress(s)
		if err != nil {
			fail("%s %q: %v", field, s, err)
			return nil
		}
		return a
	}
	// path parses an address that reaches MAIL FROM or RCPT TO and returns
	// it with its RFC 5321 form.
	path := func(field, s string) (*mail.Address, string) {
		a := addr(field, s)
		if a == nil {
			return nil, ""
		}
		wire, err := envelopeAddress(a)
		if err != nil {
			fail("%s %q: %v", field, s, err)
			return nil, ""
		}
		return a, wire
	}
	rcpts := func(field string, list []string) []*mail.Address {
		out := make([]*mail.Address, 0, len(list))
		for _, s := range list {
			if a, wire := path(field, s); a != nil {
				out = append(out, a)
				if !slices.ContainsFunc(p.envelope.To, func(s string) bool { return strings.EqualFold(s, wire) }) {
					p.envelope.To = append(p.envelope.To, wire)
				}
			}
		}
		return out
	}
	if m.From == "" {
		fail("no From address")
	} else {
		p.from, p.envelope.From = path("From", m.From)
	}
	if m.ReplyTo != "" {
		p.replyTo = addr("ReplyTo", m.ReplyTo)
	}
	if len(m.To) == 0 {
		fail("no To address")
	}
	p.to = rcpts("To", m.To)
	p.cc = rcpts("Cc", m.Cc)
	rcpts("Bcc", m.Bcc)
	if badHeaderByte(m.Subject) {
		fail("Subject %q contains a CR, LF or NUL", m.Subject)
	}
	if m.Text == "" {
		fail("no Text part (every message needs one)")
	}
	for name, value := range m.Headers {
		switch {
		case !fieldName(name):
			fail("header name %q is not an RFC 5322 field name", name)
		case reserved[canonical(name)] || strings.HasPrefix(canonical(name), "Content-"):
			fail("header %q is set by the message's fields or its MIME structure", name)
		case badHeaderByte(value):
			fail("header %s value %q contains a CR, LF or NUL", name, value)
		}
	}
	if m.MessageID != "" && (badHeaderByte(m.MessageID) || !validMessageID(m.MessageID)) {
		fail("MessageID %q: want <local@domain> without spaces or control characters", m.MessageID)
	}
	for i, a := range m.Attachments {
		switch {
		case a.Filename == "":
			fail("attachment %d has no Filename", i)
		case badHeaderByte(a.Filename):
			fail("attachment %d Filename %q contains a CR, LF or NUL", i, a.Filename)
		}
		if a.ContentType != "" {
			if badHeaderByte(a.ContentType) {
				fail("attachment %d ContentType %q contains a CR, LF or NUL", i, a.ContentType)
			} else if _, _, err := mime.ParseMediaType(a.ContentType); err != nil {
				fail("attachment %d ContentType %q: %v", i, a.ContentType, err)
			}
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrInvalid, strings.Join(errs, "; "))
	}
	return p, nil
}

// badHeaderByte reports whether s holds a CR, LF or NUL.
func badHeaderByte(s string) bool { return strings.ContainsAny(s, "\r\n\x00") }

// fieldName reports whether s is an RFC 5322 field name: printable ASCII
// but ':' and space, at most 76 bytes.
func fieldName(s string) bool {
	if s == "" || len(s) > 76 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 33 || c > 126 || c == ':' {
			return false
		}
	}
	return true
}

// canonical returns a header name in canonical form ("message-id" →
// "Message-Id").
func canonical(s string) string {
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

// validMessageID reports whether s looks like "<left@right>" with no
// space or control character.
func validMessageID(s string) bool {
	if len(s) < 5 || s[0] != '<' || s[len(s)-1] != '>' {
		return false
	}
	inner := s[1 : len(s)-1]
	at := strings.IndexByte(inner, '@')
	if at <= 0 || at == len(inner)-1 {
		return false
	}
	for i := 0; i < len(inner); i++ {
		if c := inner[i]; c <= ' ' || c >= 127 || c == '<' || c == '>' {
			return false
		}
	}
	return true
}

// contentType returns the attachment's media type.
func (a *Attachment) contentType() string {
	if a.ContentType != "" {
		return a.ContentType
	}
	if t := mime.TypeByExtension(path.Ext(a.Filename)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// Clone returns a deep copy of m (slices, headers and attachment data).
func (m *Message) Clone() *Message {
	c := *m
	c.To = cloneStrings(m.To)
	c.Cc = cloneStrings(m.Cc)
	c.Bcc = cloneStrings(m.Bcc)
	if m.Headers != nil {
		c.Headers = make(map[string]string, len(m.Headers))
		for k, v := range m.Headers {
			c.Headers[k] = v
		}
	}
	if m.Attachments != nil {
		c.Attachments = make([]Attachment, len(m.Attachments))
		for i, a := range m.Attachments {
			a.Data = append([]byte(nil), a.Data...)
			c.Attachments[i] = a
		}
	}
	return &c
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s...)
}
