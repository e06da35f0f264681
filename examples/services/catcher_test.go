package main

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
)

// catcher is the check's own SMTP server: it accepts every message unless
// told otherwise (script), and keeps what it accepted. A reply scripted for
// RCPT ("550 5.1.1 ...", "451 4.3.0 ...") answers the next recipients, one
// each, before the catcher goes back to accepting.
type catcher struct {
	ln net.Listener

	mu       sync.Mutex
	script   []string
	messages []caught
	refused  int // recipients refused by a scripted reply
}

// caught is one accepted message.
type caught struct {
	From string
	To   []string
	Data string // as sent, dot-unstuffed, CRLF line ends
}

func newCatcher(t *testing.T) *catcher {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &catcher{ln: ln}
	go c.serve()
	t.Cleanup(func() { ln.Close() })
	return c
}

// url is PLINTH_MAIL_URL for the catcher (plain SMTP, no TLS offered).
func (c *catcher) url() string { return "smtp://" + c.ln.Addr().String() + "?tls=none" }

// reply scripts the next RCPT replies.
func (c *catcher) reply(lines ...string) {
	c.mu.Lock()
	c.script = append(c.script, lines...)
	c.mu.Unlock()
}

// caught returns the messages accepted so far.
func (c *catcher) caught() []caught {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]caught(nil), c.messages...)
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

func (c *catcher) serve() {
	for {
		conn, err := c.ln.Accept()
		if err != nil {
			return
		}
		go c.session(conn)
	}
}

func (c *catcher) session(conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	w := bufio.NewWriter(conn)
	say := func(s string) { fmt.Fprintf(w, "%s\r\n", s); w.Flush() }
	say("220 catcher ESMTP ready")
	var cur caught
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb := strings.ToUpper(line)
		switch {
		case strings.HasPrefix(verb, "EHLO"):
			say("250-catcher")
			say("250-8BITMIME")
			say("250-SMTPUTF8")
			say("250 SIZE 10485760")
		case strings.HasPrefix(verb, "HELO"):
			say("250 catcher")
		case strings.HasPrefix(verb, "MAIL FROM:"):
			cur = caught{From: addrOf(line[len("MAIL FROM:"):])}
			say("250 2.1.0 ok")
		case strings.HasPrefix(verb, "RCPT TO:"):
			c.mu.Lock()
			var scripted string
			if len(c.script) > 0 {
				scripted, c.script = c.script[0], c.script[1:]
				c.refused++
			}
			c.mu.Unlock()
			if scripted != "" {
				say(scripted)
				continue
			}
			cur.To = append(cur.To, addrOf(line[len("RCPT TO:"):]))
			say("250 2.1.5 ok")
		case verb == "DATA":
			if len(cur.To) == 0 {
				say("554 5.5.1 no valid recipients")
				continue
			}
			say("354 end with <CRLF>.<CRLF>")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" || l == ".\n" {
					break
				}
				b.WriteString(strings.TrimPrefix(l, "."))
			}
			cur.Data = b.String()
			c.mu.Lock()
			c.messages = append(c.messages, cur)
			c.mu.Unlock()
			cur = caught{}
			say("250 2.0.0 queued")
		case verb == "RSET":
			cur = caught{}
			say("250 2.0.0 ok")
		case verb == "NOOP":
			say("250 2.0.0 ok")
		case verb == "QUIT":
			say("221 2.0.0 bye")
			return
		default:
			say("502 5.5.2 not implemented")
		}
	}
}

// addrOf returns the address of a MAIL FROM or RCPT TO argument.
func addrOf(arg string) string {
	arg = strings.TrimSpace(arg)
	if i := strings.IndexByte(arg, '>'); strings.HasPrefix(arg, "<") && i > 0 {
		return arg[1:i]
	}
	return strings.Fields(arg)[0]
}
