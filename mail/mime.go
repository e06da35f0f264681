package mail

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Bytes validates m and returns its MIME form (RFC 5322 with CRLF line
// endings), as WriteTo writes it.
func (m *Message) Bytes() ([]byte, error) {
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteTo validates m and writes its MIME form to w: the headers (Date,
// Message-ID, From, Reply-To, To, Cc, Subject, MIME-Version, the extra
// Headers sorted by name; never Bcc), then the body. A message with Text
// only is one text/plain part; with HTML it is multipart/alternative, text
// first; with attachments multipart/mixed around that. Text parts are UTF-8
// and quoted-printable (CRLF line endings), attachments base64 in lines of
// 76 characters. A zero Date is the current time and an empty MessageID a
// random one at From's domain; m itself is not changed.
func (m *Message) WriteTo(w io.Writer) (int64, error) {
	p, err := m.check()
	if err != nil {
		return 0, err
	}
	cw := &countWriter{w: w}
	err = m.write(cw, p)
	return cw.n, err
}

// countWriter counts the bytes written and keeps the first error.
type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(b []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(b)
	c.n += int64(n)
	c.err = err
	return n, err
}

// WriteString writes s without a copy when the destination takes strings.
func (c *countWriter) WriteString(s string) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	sw, ok := c.w.(io.StringWriter)
	if !ok {
		return c.Write([]byte(s))
	}
	n, err := sw.WriteString(s)
	c.n += int64(n)
	c.err = err
	return n, err
}

func (c *countWriter) str(s string) { c.WriteString(s) }

func (m *Message) write(w *countWriter, p *parsed) error {
	date := m.Date
	if date.IsZero() {
		date = time.Now()
	}
	id := m.MessageID
	if id == "" {
		id = NewMessageID(p.from.Address)
	}
	header(w, "Date", date.Format(time.RFC1123Z))
	header(w, "Message-ID", id)
	header(w, "From", p.from.String())
	if p.replyTo != nil {
		header(w, "Reply-To", p.replyTo.String())
	}
	header(w, "To", addrList(p.to))
	if len(p.cc) > 0 {
		header(w, "Cc", addrList(p.cc))
	}
	if m.Subject != "" {
		header(w, "Subject", encodeText(m.Subject))
	}
	header(w, "MIME-Version", "1.0")
	for _, name := range slices.Sorted(maps.Keys(m.Headers)) {
		header(w, name, encodeText(m.Headers[name]))
	}
	ctype, body := m.content()
	if len(m.Attachments) == 0 {
		header(w, "Content-Type", ctype)
		if m.HTML == "" {
			header(w, "Content-Transfer-Encoding", "quoted-printable")
		}
		w.str("\r\n")
		body(w)
		return w.err
	}
	mw := multipart.NewWriter(w)
	header(w, "Content-Type", mime.FormatMediaType("multipart/mixed", map[string]string{"boundary": mw.Boundary()}))
	w.str("\r\n")
	h := textproto.MIMEHeader{"Content-Type": {ctype}}
	if m.HTML == "" {
		h.Set("Content-Transfer-Encoding", "quoted-printable")
	}
	part, err := mw.CreatePart(h)
	if err != nil {
		return err
	}
	pw := &countWriter{w: part}
	body(pw)
	if pw.err != nil {
		return pw.err
	}
	for i := range m.Attachments {
		a := &m.Attachments[i]
		h := textproto.MIMEHeader{}
		h.Set("Content-Type", a.contentType())
		h.Set("Content-Transfer-Encoding", "base64")
		h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": a.Filename}))
		part, err := mw.CreatePart(h)
		if err != nil {
			return err
		}
		if err := writeBase64(part, a.Data); err != nil {
			return err
		}
	}
	if err := mw.Close(); err != nil {
		return err
	}
	return w.err
}

// content returns the Content-Type of the text (or text and HTML) body and
// the function that writes it: text/plain quoted-printable, or
// multipart/alternative with a quoted-printable part each.
func (m *Message) content() (string, func(w *countWriter)) {
	if m.HTML == "" {
		return "text/plain; charset=utf-8", func(w *countWriter) { writeQP(w, m.Text) }
	}
	var boundary [30]byte
	rand.Read(boundary[:])
	b := hex.EncodeToString(boundary[:])
	return mime.FormatMediaType("multipart/alternative", map[string]string{"boundary": b}), func(w *countWriter) {
		mw := multipart.NewWriter(w)
		mw.SetBoundary(b)
		for _, part := range [...]struct{ typ, body string }{{"text/plain; charset=utf-8", m.Text}, {"text/html; charset=utf-8", m.HTML}} {
			h := textproto.MIMEHeader{}
			h.Set("Content-Type", part.typ)
			h.Set("Content-Transfer-Encoding", "quoted-printable")
			pw, err := mw.CreatePart(h)
			if err != nil {
				w.err = err
				return
			}
			writeQP(&countWriter{w: pw}, part.body)
		}
		if err := mw.Close(); err != nil && w.err == nil {
			w.err = err
		}
	}
}

// writeQP writes s quoted-printable, its line breaks as CRLF. Nothing is
// added after it: in a multipart body the CRLF before a boundary is the
// boundary's.
func writeQP(w *countWriter, s string) {
	qp := quotedprintable.NewWriter(w)
	io.WriteString(qp, s)
	qp.Close()
}

// writeBase64 writes data base64-encoded in lines of 76 characters.
func writeBase64(w io.Writer, data []byte) error {
	const perLine = 57 // bytes encoding to 76 characters
	line := make([]byte, 0, 78)
	for len(data) > 0 {
		n := min(perLine, len(data))
		line = base64.StdEncoding.AppendEncode(line[:0], data[:n])
		line = append(line, '\r', '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// header writes one header field, folded at spaces (the one after the
// colon included) to lines of at most 78 characters where the value allows
// it (a longer word stays whole: the hard limit is 998).
func header(w *countWriter, name, value string) {
	w.str(name)
	w.str(":")
	line := len(name) + 1
	for {
		word, rest, more := strings.Cut(value, " ")
		if line+1+len(word) > 78 && line > 1 {
			w.str("\r\n ")
			line = 1
		} else {
			w.str(" ")
			line++
		}
		w.str(word)
		line += len(word)
		if !more {
			break
		}
		value = rest
	}
	w.str("\r\n")
}

// encodeText returns s for an unstructured header field: as it is when it
// is printable ASCII, else RFC 2047 encoded words (Q encoding, UTF-8). Text
// that would read as an encoded word ("=?utf-8?q?...?=") is encoded too,
// so that a reader shows it as typed instead of decoding it.
func encodeText(s string) string {
	if !strings.Contains(s, "=?") {
		return mime.QEncoding.Encode("utf-8", s)
	}
	const maxWord = 75 - len("=?utf-8?q??=")
	var b strings.Builder
	word := make([]byte, 0, maxWord)
	flush := func() {
		if len(word) > 0 {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString("=?utf-8?q?")
			b.Write(word)
			b.WriteString("?=")
			word = word[:0]
		}
	}
	for _, r := range s {
		var enc []byte
		var buf [4]byte
		for _, c := range buf[:utf8.EncodeRune(buf[:], r)] {
			switch {
			case c == ' ':
				enc = append(enc, '_')
			case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '!', c == '*', c == '+', c == '-', c == '/':
				enc = append(enc, c)
			default:
				enc = append(enc, '=', "0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&15])
			}
		}
		if len(word)+len(enc) > maxWord {
			flush()
		}
		word = append(word, enc...)
	}
	flush()
	return b.String()
}

// addrList renders addresses for a header, non-ASCII names RFC 2047-encoded.
func addrList(list []*mail.Address) string {
	var b strings.Builder
	for i, a := range list {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.String())
	}
	return b.String()
}

// NewMessageID returns a new random Message-ID, "<32 hex digits@domain>",
// domain taken from the address (after its last '@'), or "localhost".
func NewMessageID(address string) string {
	domain := "localhost"
	if at := strings.LastIndexByte(address, '@'); at >= 0 && at < len(address)-1 {
		domain = address[at+1:]
	}
	var b [16]byte
	rand.Read(b[:])
	return "<" + hex.EncodeToString(b[:]) + "@" + domain + ">"
}
