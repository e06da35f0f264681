package main

import (
	"strings"
	"testing"

	"github.com/plinth-go/plinth/mail/smtpmail/smtptest"
)

// catcher is the check's SMTP server: the mail/smtpmail module's in-process
// catcher (smtptest), plain SMTP, accepting every message unless a reply
// is scripted for the next recipients ("550 5.1.1 ...", "451 4.3.0 ...").
type catcher struct {
	srv *smtptest.Server
}

// caught is one accepted message.
type caught struct {
	From string
	To   []string
	Data string // as sent, dot-unstuffed
}

func newCatcher(t *testing.T) *catcher {
	t.Helper()
	return &catcher{srv: smtptest.New(t, smtptest.Config{TLS: smtptest.NoTLS})}
}

// url is PLINTH_MAIL_URL for the catcher (plain SMTP: it offers no TLS).
func (c *catcher) url() string { return "smtp://" + c.srv.Addr + "?tls=none" }

// reply scripts the replies to the next RCPT commands, one each.
func (c *catcher) reply(lines ...string) { c.srv.Script(smtptest.StageRcpt, lines...) }

// caught returns the messages accepted so far.
func (c *catcher) caught() []caught {
	var out []caught
	for _, m := range c.srv.Messages() {
		out = append(out, caught{From: m.From, To: m.To, Data: string(m.Data)})
	}
	return out
}

// to returns the accepted messages to addr.
func (c *catcher) to(addr string) []caught {
	var out []caught
	for _, m := range c.caught() {
		for _, r := range m.To {
			if strings.EqualFold(r, addr) {
				out = append(out, m)
				break
			}
		}
	}
	return out
}
