package smtptest_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"net"
	"net/smtp"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth/mail/smtpmail/smtptest"
)

// TestStandardClient: net/smtp's client (STARTTLS, AUTH PLAIN) delivers
// through the catcher, and Wait sees the message.
func TestStandardClient(t *testing.T) {
	s := smtptest.New(t, smtptest.Config{TLS: smtptest.STARTTLS, RequireTLS: true, Username: "u", Password: "p"})
	c, err := smtp.Dial(s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Mail("a@example.com"); err == nil || !strings.Contains(err.Error(), "530") {
		t.Fatalf("MAIL before STARTTLS: %v, want 530", err)
	}
	if err := c.StartTLS(s.ClientTLSConfig()); err != nil {
		t.Fatal(err)
	}
	if err := c.Auth(smtp.PlainAuth("", "u", "p", "127.0.0.1")); err != nil {
		t.Fatal(err)
	}
	if err := c.Mail("a@example.com"); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt("b@example.com"); err != nil {
		t.Fatal(err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("Subject: hi\r\n\r\n.leading dot\r\nbody\r\n"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c.Quit()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msgs, err := s.Wait(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	m := msgs[0]
	if m.From != "a@example.com" || len(m.To) != 1 || m.To[0] != "b@example.com" || !m.TLS || m.Auth != "u" || m.Conn != 1 {
		t.Fatalf("message %+v", m)
	}
	if string(m.Data) != "Subject: hi\r\n\r\n.leading dot\r\nbody\r\n" {
		t.Fatalf("data %q", m.Data)
	}
}

// TestLoginAndLimits: AUTH LOGIN, the size limit (552), an endless line
// closes the connection, a Wait that times out says how many came.
func TestLoginAndLimits(t *testing.T) {
	s := smtptest.New(t, smtptest.Config{TLS: smtptest.ImplicitTLS, Username: "u", Password: "p", MaxBytes: 100})
	conn, err := tls.Dial("tcp", s.Addr, s.ClientTLSConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	expect := func(send, want string) {
		t.Helper()
		if send != "" {
			conn.Write([]byte(send + "\r\n"))
		}
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("after %q: %v", send, err)
			}
			if len(line) < 4 || line[3] != '-' {
				if !strings.HasPrefix(line, want) {
					t.Fatalf("after %q: %q, want %s", send, line, want)
				}
				return
			}
		}
	}
	expect("", "220")
	expect("EHLO x", "250")
	expect("MAIL FROM:<a@example.com>", "530")
	expect("AUTH LOGIN", "334 VXNlcm5hbWU6")
	expect("dQ==", "334 UGFzc3dvcmQ6") // "u"
	expect("cA==", "235")              // "p"
	expect("MAIL FROM:<a@example.com> BODY=8BITMIME", "250")
	expect("RCPT TO:<b@example.com>", "250")
	expect("DATA", "354")
	expect(strings.Repeat("x", 200)+"\r\n.", "552")
	if n := len(s.Messages()); n != 0 {
		t.Fatalf("%d messages kept after 552", n)
	}
	expect("NOOP", "250")
	conn.Write([]byte(strings.Repeat("y", 70<<10)))
	if _, err := r.ReadString('\n'); err == nil {
		t.Fatal("the connection survived an endless line")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := s.Wait(ctx, 1); err == nil || !strings.Contains(err.Error(), "0 of 1") {
		t.Fatalf("Wait = %v", err)
	}
}

// TestClose: Close ends open connections and the listener.
func TestClose(t *testing.T) {
	s, err := smtptest.Start(smtptest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bufio.NewReader(c).ReadString('\n')
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("the connection is still open")
	}
	if _, err := net.Dial("tcp", s.Addr); err == nil {
		t.Fatal("the listener is still open")
	}
}
