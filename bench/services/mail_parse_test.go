package services

import (
	"strings"
	"testing"

	"github.com/plinth-go/plinth/mail/mailtest"
)

type parsedMail struct{ Subject, Text, HTML, Parts string }

func parse(t *testing.T, raw []byte) *parsedMail {
	t.Helper()
	p, err := mailtest.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return &parsedMail{Subject: p.Subject, Text: strings.TrimRight(p.Text, "\r\n"), HTML: strings.TrimRight(p.HTML, "\r\n"), Parts: strings.Join(p.Alternative, ",")}
}
