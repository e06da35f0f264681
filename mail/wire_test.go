package mail_test

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth/mail"
	"github.com/plinth-go/plinth/mail/mailtest"
)

// fixed returns valid() with a fixed Date and Message-ID, so that its MIME
// form is the same at every build.
func fixed() *mail.Message {
	m := valid()
	m.Date = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m.MessageID = "<fixed@example.com>"
	return m
}

// shapes are the three structures of a MIME form: text only,
// multipart/alternative, and multipart/mixed with attachments.
func shapes() map[string]*mail.Message {
	text := fixed()
	alt := fixed()
	alt.HTML = "<p>Hello, Ada.</p>"
	mixed := fixed()
	mixed.HTML = "<p>Hello, Ada.</p>"
	mixed.Attachments = []mail.Attachment{{Filename: "a.bin", Data: bytes.Repeat([]byte{1, 2, 3}, 50)}, {Filename: "b.txt", Data: []byte("b")}}
	textMixed := fixed()
	textMixed.Attachments = []mail.Attachment{{Filename: "a.bin", Data: []byte("a")}}
	return map[string]*mail.Message{"text": text, "alternative": alt, "mixed": mixed, "text and attachment": textMixed}
}

// plainWriter hides bytes.Buffer's WriteString: WriteTo then goes
// through Write only.
type plainWriter struct{ b bytes.Buffer }

func (w *plainWriter) Write(p []byte) (int, error) { return w.b.Write(p) }

// TestWriteToCount: WriteTo returns the number of bytes it wrote, whether
// the writer takes strings or not, and writes what Bytes returns.
func TestWriteToCount(t *testing.T) {
	for name, m := range shapes() {
		want, err := m.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if m.HTML == "" && len(m.Attachments) == 0 {
			// Two builds agree (the text-only form has no random boundary).
			if again, _ := m.Bytes(); !bytes.Equal(again, want) {
				t.Errorf("%s: two builds differ", name)
			}
		}
		var sb bytes.Buffer
		n, err := m.WriteTo(&sb)
		if err != nil || n != int64(sb.Len()) || sb.Len() != len(want) {
			t.Errorf("%s: WriteTo to a bytes.Buffer = %d, %v; wrote %d bytes, Bytes gives %d", name, n, err, sb.Len(), len(want))
		}
		var pw plainWriter
		n, err = m.WriteTo(&pw)
		if err != nil || n != int64(pw.b.Len()) || pw.b.Len() != len(want) {
			t.Errorf("%s: WriteTo to a plain io.Writer = %d, %v; wrote %d bytes, Bytes gives %d", name, n, err, pw.b.Len(), len(want))
		}
		if _, err := mailtest.Parse(pw.b.Bytes()); err != nil {
			t.Errorf("%s: the form written through Write does not parse: %v", name, err)
		}
	}
}

// failingWriter takes the first room bytes, then fails (through Write
// only).
type failingWriter struct {
	room int
	n    int
}

var errDiskFull = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n+len(p) <= w.room {
		w.n += len(p)
		return len(p), nil
	}
	k := w.room - w.n
	w.n = w.room
	return k, errDiskFull
}

// TestWriteToWriterError: whichever byte the writer fails at, in the
// header, a part or an attachment, WriteTo stops and returns the writer's
// error with the count of the bytes the writer took.
func TestWriteToWriterError(t *testing.T) {
	for name, m := range shapes() {
		full, err := m.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		for room := 0; room < len(full); room += 7 {
			w := &failingWriter{room: room}
			n, err := m.WriteTo(w)
			if !errors.Is(err, errDiskFull) {
				t.Fatalf("%s: the writer fails after %d of %d bytes: WriteTo = %d, %v; want the writer's error", name, room, len(full), n, err)
			}
			if n != int64(room) {
				t.Fatalf("%s: the writer took %d bytes, WriteTo says %d", name, room, n)
			}
		}
		if n, err := m.WriteTo(&failingWriter{room: len(full)}); err != nil || n != int64(len(full)) {
			t.Errorf("%s: a writer with room for all: %d, %v", name, n, err)
		}
	}
}

// headerLines returns the lines of raw's header, as written (folded).
func headerLines(t *testing.T, raw []byte) []string {
	t.Helper()
	head, _, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok {
		t.Fatalf("no end of header in %q", raw)
	}
	return strings.Split(string(head), "\r\n")
}

// TestHeaderFolding: a field that fits in 78 characters stays on one line;
// one word more folds it before that word; words longer than a line stay
// whole, and no line of the header is blank (a folded header never
// holds a whitespace-only line).
func TestHeaderFolding(t *testing.T) {
	word := "abcdefg"
	fits := strings.TrimSpace(strings.Repeat(word+" ", 9)) // "X-Fit: " + 9 words = 78 characters
	long := strings.Repeat("A", 80) + "  " + strings.Repeat("B", 80)
	m := fixed()
	odd := strings.Repeat(word+" ", 8) + word + "h" // "X-Odd: " + these = 79 characters
	m.Headers = map[string]string{"X-Fit": fits, "X-Big": fits + " " + word, "X-Gap": long, "X-Odd": odd}
	raw, err := m.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	lines := headerLines(t, raw)
	want := map[string]bool{
		"X-Fit: " + fits:                        false,
		"X-Big: " + fits:                        false, // 79 with the tenth word: folded before it
		" " + word:                              false,
		" " + strings.Repeat("A", 80):           false,
		"  " + strings.Repeat("B", 80):          false,
		"X-Gap:":                                false,
		" " + word + "h":                        false,
		"Subject: Hello":                        false,
		"Message-ID: <fixed@example.com>":       false,
		"Date: Fri, 02 Jan 2026 03:04:05 +0000": false,
	}
	for _, l := range lines {
		if len(l) > 78 && !strings.Contains(l, strings.Repeat("A", 80)) && !strings.Contains(l, strings.Repeat("B", 80)) {
			t.Errorf("a header line of %d characters: %q", len(l), l)
		}
		if strings.TrimSpace(l) == "" {
			t.Errorf("a blank line in the header:\n%s", strings.Join(lines, "\n"))
		}
		if _, ok := want[l]; ok {
			want[l] = true
		}
	}
	for l, seen := range want {
		if !seen {
			t.Errorf("no header line %q in\n%s", l, strings.Join(lines, "\n"))
		}
	}
}

// TestSubjectLikeEncodedWord: a subject holding "=?" is sent as encoded
// words, so that a reader shows it as typed: letters, digits and !*+-/
// stay readable, every other byte is =XX, a space is '_'; a long one is
// split into words of at most 75 characters, each on its own folded line.
func TestSubjectLikeEncodedWord(t *testing.T) {
	for subject, want := range map[string]string{
		"Re: =?ok?= Zoë !*+-/09azAZ_~":  "Subject: =?utf-8?q?Re=3A_=3D=3Fok=3F=3D_Zo=C3=AB_!*+-/09azAZ=5F=7E?=\r\n",
		"=?" + strings.Repeat("a", 100): "Subject:\r\n =?utf-8?q?=3D=3F" + strings.Repeat("a", 57) + "?=\r\n =?utf-8?q?" + strings.Repeat("a", 43) + "?=\r\n",
	} {
		m := fixed()
		m.Subject = subject
		raw, err := m.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("subject %q: want %q in\n%s", subject, want, raw)
		}
		for _, w := range regexp.MustCompile(`=\?[^ \r\n]*\?=`).FindAll(raw, -1) {
			if len(w) > 75 {
				t.Errorf("encoded word of %d characters: %s", len(w), w)
			}
		}
		p, err := mailtest.Parse(raw)
		if err != nil || p.Subject != subject {
			t.Errorf("subject %q read back as %q (%v)", subject, p.Subject, err)
		}
	}
}

// TestNewMessageID: a random id at the address's domain, or at localhost
// when the address has none.
func TestNewMessageID(t *testing.T) {
	id := regexp.MustCompile(`^<[0-9a-f]{32}@([^>]*)>$`)
	for addr, domain := range map[string]string{
		"ada@example.com":    "example.com",
		"@example.com":       "example.com",
		`"a@b"@corp.example`: "corp.example",
		"ada@":               "localhost",
		"nobody":             "localhost",
		"":                   "localhost",
		"a@[192.0.2.1]":      "[192.0.2.1]",
	} {
		got := mail.NewMessageID(addr)
		m := id.FindStringSubmatch(got)
		if m == nil || m[1] != domain {
			t.Errorf("NewMessageID(%q) = %q, want <32 hex digits@%s>", addr, got, domain)
		}
	}
	if a, b := mail.NewMessageID("a@example.com"), mail.NewMessageID("a@example.com"); a == b {
		t.Errorf("two ids are the same: %s", a)
	}
}

// TestAttachmentContentType: an attachment's type is its ContentType, else
// its extension's, else application/octet-stream.
func TestAttachmentContentType(t *testing.T) {
	m := fixed()
	m.Text = "Zoë = Ada\n" // quoted-printable in the text part, which says so
	m.Attachments = []mail.Attachment{
		{Filename: "report.pdf", Data: []byte("%PDF")},
		{Filename: "blob.no-such-extension", Data: []byte{0}},
		{Filename: "README", Data: []byte("r")},
		{Filename: "data.pdf", ContentType: "text/csv", Data: []byte("a,b")},
	}
	raw, err := m.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	p, err := mailtest.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if p.Text != "Zoë = Ada\r\n" {
		t.Errorf("the text part beside attachments reads back as %q", p.Text)
	}
	want := []string{"application/pdf", "application/octet-stream", "application/octet-stream", "text/csv"}
	if len(p.Attachments) != len(want) {
		t.Fatalf("%d attachments, want %d", len(p.Attachments), len(want))
	}
	for i, a := range p.Attachments {
		if a.ContentType != want[i] || a.Filename != m.Attachments[i].Filename || !bytes.Equal(a.Data, m.Attachments[i].Data) {
			t.Errorf("attachment %d: %q %q %q, want %q", i, a.Filename, a.ContentType, a.Data, want[i])
		}
	}
	// Base64 lines are 76 characters, the last one shorter.
	data := bytes.Repeat([]byte("0123456789"), 20) // 200 bytes: 3 lines of 57, then 29
	m.Attachments = []mail.Attachment{{Filename: "d.bin", Data: data}}
	raw, _ = m.Bytes()
	var lens []int
	for _, l := range strings.Split(string(raw), "\r\n") {
		if regexp.MustCompile(`^[A-Za-z0-9+/]+=*$`).MatchString(l) && len(l) > 20 {
			lens = append(lens, len(l))
		}
	}
	if len(lens) != 4 || lens[0] != 76 || lens[1] != 76 || lens[2] != 76 || lens[3] != 40 {
		t.Errorf("base64 line lengths %v, want [76 76 76 40]", lens)
	}
}
