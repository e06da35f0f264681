package mailtest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/mail"
	"github.com/plinth-go/plinth/mail/mailtest"
)

// recorder is a testing.TB whose Fatalf records instead of stopping.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}

func TestAssertions(t *testing.T) {
	mem := mailtest.New()
	r := &recorder{TB: t}
	mailtest.Count(r, mem, 0)
	mailtest.Last(r, mem)
	mailtest.Has(r, mem)
	if len(r.failed) != 2 || !strings.Contains(r.failed[0], "no message sent") || !strings.Contains(r.failed[1], "no message sent") {
		t.Fatalf("on an empty Memory: %q", r.failed)
	}
	for _, to := range []string{"a@example.com", "b@example.com"} {
		if err := mem.Send(context.Background(), &mail.Message{From: "x@example.com", To: []string{to}, Cc: []string{"c@example.com"}, Subject: "to " + to, Text: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	r.failed = nil
	if got := mailtest.Has(r, mem, mailtest.To("B@example.com")); got == nil || got.Subject != "to b@example.com" {
		t.Fatalf("Has(To) found %v", got)
	}
	if got := mailtest.Has(r, mem, mailtest.To("c@example.com")); got == nil || got.Subject != "to a@example.com" {
		t.Fatalf("Has(To) in both: %v, want the first sent", got)
	}
	if got := mailtest.Has(r, mem, mailtest.To("c@example.com"), mailtest.Subject("to b@example.com")); got == nil || got.Subject != "to b@example.com" {
		t.Fatalf("Has(To, Subject) found %v", got)
	}
	if len(r.failed) != 0 {
		t.Fatalf("failures %q", r.failed)
	}
	mailtest.Has(r, mem, mailtest.To("d@example.com"))
	mailtest.Count(r, mem, 3)
	if len(r.failed) != 2 || !strings.Contains(r.failed[0], "none of the 2 messages sent matches") || !strings.Contains(r.failed[1], "2 messages sent, want 3") || !strings.Contains(r.failed[1], `"to a@example.com"`) {
		t.Fatalf("failures %q", r.failed)
	}
	if last := mailtest.Last(t, mem); last.Subject != "to b@example.com" {
		t.Fatalf("Last %q", last.Subject)
	}
}

func TestParseErrors(t *testing.T) {
	for _, raw := range []string{
		"no header separator",
		"Content-Type: multipart/alternative; boundary=x\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\nunterminated",
		"Content-Type: text/\r\n\r\nbody",
	} {
		if _, err := mailtest.Parse([]byte(raw)); err == nil {
			t.Errorf("Parse(%q) accepted", raw)
		}
	}
}
