package mail_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/mail"
)

// TestValidateMessageID: a MessageID is "<left@right>" of printable ASCII
// without space or angle bracket inside; the shortest is "<a@b>".
func TestValidateMessageID(t *testing.T) {
	for id, ok := range map[string]bool{
		"<a@b>":                 true,
		"<!~@example.com>":      true,
		"<a.b+c@[192.0.2.1]>":   true,
		"<@b>":                  false,
		"<@bc>":                 false,
		"<ab@>":                 false,
		"<a@>":                  false,
		"<ab>":                  false,
		"<a@b":                  false,
		"a@b>":                  false,
		"<>":                    false,
		"a@b":                   false,
		"<a b@c>":               false,
		"<a\x7f@b>":             false,
		"<a\x1f@b>":             false,
		"<a<b@c>":               false,
		"<a@b>c>":               false,
		"<zoë@example.com>":     false,
		"<a@b>\r\nBcc: x@y.com": false,
	} {
		m := valid()
		m.MessageID = id
		err := m.Validate()
		if ok && err != nil {
			t.Errorf("MessageID %q: %v", id, err)
		}
		if !ok && (!errors.Is(err, mail.ErrInvalid) || !strings.Contains(err.Error(), "MessageID")) {
			t.Errorf("MessageID %q: %v, want ErrInvalid naming MessageID", id, err)
		}
	}
}

// TestValidateHeaderNames: an extra header's name is 1 to 76 printable
// ASCII characters but ':'; the names of the message's own fields and of
// the MIME structure are refused whatever their case.
func TestValidateHeaderNames(t *testing.T) {
	for name, ok := range map[string]bool{
		"X-Campaign":                true,
		"List-Unsubscribe":          true,
		"X-!~":                      true,
		strings.Repeat("X", 76):     true,
		"X-Content-Type":            true,
		"X-Message-Id":              true,
		"Zone":                      true,
		strings.Repeat("X", 77):     false,
		"":                          false,
		"X-\x7f":                    false,
		"X-\x1f":                    false,
		"X-Zoë":                     false,
		"message-id":                false,
		"MESSAGE-ID":                false,
		"mime-version":              false,
		"reply-to":                  false,
		"return-path":               false,
		"SENDER":                    false,
		"content-transfer-encoding": false,
		"cONTENT-dISPOSITION":       false,
		"Date":                      false,
		"subject":                   false,
	} {
		m := valid()
		m.Headers = map[string]string{name: "v"}
		err := m.Validate()
		if ok && err != nil {
			t.Errorf("header %q: %v", name, err)
		}
		if !ok && !errors.Is(err, mail.ErrInvalid) {
			t.Errorf("header %q: %v, want ErrInvalid", name, err)
		}
	}
}

// TestValidateAttachments: an attachment needs a Filename; its name and
// content type carry no CR, LF or NUL; every problem is named, with the
// attachment's index, in the one error.
func TestValidateAttachments(t *testing.T) {
	m := valid()
	m.Attachments = []mail.Attachment{
		{Filename: "ok.txt", ContentType: "text/plain; charset=utf-8", Data: []byte("x")},
		{Data: []byte("x")},
		{Filename: "a.txt", ContentType: "text/plain\r\nBcc: x@example.com", Data: []byte("x")},
		{Filename: "b\x00.txt", Data: []byte("x")},
	}
	err := m.Validate()
	if !errors.Is(err, mail.ErrInvalid) {
		t.Fatalf("Validate = %v", err)
	}
	for _, want := range []string{"attachment 1 has no Filename", "attachment 2 ContentType", "attachment 3 Filename"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "attachment 0") {
		t.Errorf("the good attachment is refused: %v", err)
	}
}

// TestValidateReportsEverything: one error names every problem.
func TestValidateReportsEverything(t *testing.T) {
	m := &mail.Message{ReplyTo: "not an address", Subject: "a\nb", Headers: map[string]string{"X-A": "b\r\n"}}
	err := m.Validate()
	for _, want := range []string{"no From", "no To", "no Text", "ReplyTo", "Subject", "X-A"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate = %v, want it to say %q", err, want)
		}
	}
	var nilMsg *mail.Message
	if err := nilMsg.Validate(); !errors.Is(err, mail.ErrInvalid) {
		t.Errorf("a nil message: %v", err)
	}
	if _, err := nilMsg.Envelope(); !errors.Is(err, mail.ErrInvalid) {
		t.Errorf("the envelope of a nil message: %v", err)
	}
}

// TestClone: a clone shares nothing the caller can change: recipients,
// headers and attachment data are copied; nil fields stay nil.
func TestClone(t *testing.T) {
	m := valid()
	m.Cc = []string{"c@example.com"}
	m.Bcc = []string{"b@example.com"}
	m.Headers = map[string]string{"X-A": "1"}
	m.Attachments = []mail.Attachment{{Filename: "a.txt", Data: []byte("data")}}
	c := m.Clone()
	c.To[0], c.Cc[0], c.Bcc[0] = "x@example.com", "x@example.com", "x@example.com"
	c.Headers["X-A"] = "2"
	c.Attachments[0].Data[0] = 'D'
	c.Attachments[0].Filename = "b.txt"
	if m.To[0] != "ada@example.com" || m.Cc[0] != "c@example.com" || m.Bcc[0] != "b@example.com" || m.Headers["X-A"] != "1" ||
		string(m.Attachments[0].Data) != "data" || m.Attachments[0].Filename != "a.txt" {
		t.Errorf("changing the clone changed the message: %+v", m)
	}
	if c.Subject != m.Subject || c.Text != m.Text || c.From != m.From {
		t.Errorf("clone %+v of %+v", c, m)
	}
	bare := valid().Clone()
	if bare.Cc != nil || bare.Bcc != nil || bare.Headers != nil || bare.Attachments != nil {
		t.Errorf("nil fields of the clone: %+v", bare)
	}
}
