// Package smtptest is an SMTP catcher for tests: an in-process server on
// 127.0.0.1 that speaks enough ESMTP for a real client (EHLO, STARTTLS,
// implicit TLS, AUTH PLAIN and LOGIN, MAIL, RCPT, DATA, RSET, NOOP, QUIT),
// records every message it accepts, and answers from a script when told
// to ("451 twice, then accept"; "550 at RCPT"). Its TLS certificate is
// self-signed for 127.0.0.1 and localhost; ClientTLSConfig trusts it.
//
// It depends on the standard library only.
package smtptest

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"
)

// TLSMode is the server's encryption.
type TLSMode string

// The modes.
const (
	// NoTLS offers no encryption.
	NoTLS TLSMode = "none"
	// STARTTLS offers STARTTLS in its EHLO reply.
	STARTTLS TLSMode = "starttls"
	// ImplicitTLS speaks TLS from the first byte.
	ImplicitTLS TLSMode = "implicit"
)

// Stage is the command a scripted reply answers.
type Stage string

// The stages a script can answer.
const (
	StageMail Stage = "MAIL" // MAIL FROM
	StageRcpt Stage = "RCPT" // each RCPT TO
	StageData Stage = "DATA" // the end of the message's data (the reply after ".")
)

// Config configures Start and New. The zero value is a plain server that accepts
// everything.
type Config struct {
	// Addr is the address to listen on. Default "127.0.0.1:0" (a free
	// port on the loopback interface).
	Addr string
	// TLS is the server's encryption. Default NoTLS.
	TLS TLSMode
	// RequireTLS refuses MAIL with 530 before STARTTLS (STARTTLS mode).
	RequireTLS bool
	// Username and Password, when set, are the only credentials AUTH
	// accepts (PLAIN or LOGIN), and MAIL is refused with 530 before AUTH.
	// Default: AUTH not offered, not required.
	Username, Password string
	// MaxBytes bounds one message's data; a larger one is refused with
	// 552. Default 10 MiB.
	MaxBytes int
	// Timeout bounds each connection's wait for a command. Default 30 s.
	Timeout time.Duration
	// Discard counts accepted messages (Count) without keeping them, for
	// benchmarks: Messages and Wait then see none. Default false.
	Discard bool
}

// Message is one accepted message.
type Message struct {
	From string
	To   []string
	// Data is the message as the client sent it (dot-stuffing undone),
	// headers and body, CRLF line endings.
	Data []byte
	// TLS reports whether the connection was encrypted.
	TLS bool
	// Auth is the user the connection authenticated as, or "".
	Auth string
	// Conn numbers the connection it came on, from 1.
	Conn int
}

// Server is a running catcher.
type Server struct {
	// Addr is its "127.0.0.1:port".
	Addr string

	opts    Config
	ln      net.Listener
	tlsConf *tls.Config
	roots   *x509.CertPool

	mu       sync.Mutex
	count    int
	msgs     []Message
	script   map[Stage][]string
	conns    int
	commands []string
	changed  chan struct{} // closed and replaced when a message arrives
	wg       sync.WaitGroup
	open     map[net.Conn]struct{}
	closed   bool
}

// New starts a server for a test and closes it when the test ends.
func New(t testing.TB, cfg Config) *Server {
	t.Helper()
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Start starts a server on 127.0.0.1, a free port.
func Start(opts Config) (*Server, error) {
	if opts.TLS == "" {
		opts.TLS = NoTLS
	}
	switch opts.TLS {
	case NoTLS, STARTTLS, ImplicitTLS:
	default:
		return nil, fmt.Errorf("smtptest: TLS mode %q: use none, starttls or implicit", opts.TLS)
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 10 << 20
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	cert, roots, err := selfSigned()
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts:    opts,
		tlsConf: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		roots:   roots,
		script:  map[Stage][]string{},
		changed: make(chan struct{}),
		open:    map[net.Conn]struct{}{},
	}
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("smtptest: %w", err)
	}
	if opts.TLS == ImplicitTLS {
		ln = tls.NewListener(ln, s.tlsConf)
	}
	s.ln, s.Addr = ln, ln.Addr().String()
	s.wg.Add(1)
	go s.serve()
	return s, nil
}

// Host returns the host the server listens on ("127.0.0.1").
func (s *Server) Host() string { h, _, _ := net.SplitHostPort(s.Addr); return h }

// Port returns the server's port.
func (s *Server) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// ClientTLSConfig returns a client configuration that trusts the server's
// certificate (for 127.0.0.1 and localhost).
func (s *Server) ClientTLSConfig() *tls.Config {
	return &tls.Config{RootCAs: s.roots, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
}

// Script queues replies for stage: each answers one command of that stage,
// in order, in place of acceptance ("451 4.3.0 try again later",
// "550 5.1.1 no such user"); once they are used up the server accepts
// again. A refused DATA end, MAIL or RCPT records nothing.
func (s *Server) Script(stage Stage, replies ...string) {
	s.mu.Lock()
	s.script[stage] = append(s.script[stage], replies...)
	s.mu.Unlock()
}

// Messages returns the messages accepted so far, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// Count returns the number of messages accepted so far (kept or not).
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count
}

// Connections returns the number of connections accepted so far.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

// Commands returns the commands received so far, in order, each as its
// verb and argument ("MAIL FROM:<a@example.com>"; AUTH's credentials left
// out).
func (s *Server) Commands() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.commands...)
}

// Notify returns a channel closed at the next accepted message (kept or
// not), for a caller that streams them.
func (s *Server) Notify() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// Wait returns once n messages were accepted, or with ctx's error.
func (s *Server) Wait(ctx context.Context, n int) ([]Message, error) {
	for {
		s.mu.Lock()
		msgs, ch := append([]Message(nil), s.msgs...), s.changed
		s.mu.Unlock()
		if len(msgs) >= n {
			return msgs, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return msgs, fmt.Errorf("smtptest: %d of %d messages: %w", len(msgs), n, ctx.Err())
		}
	}
}

// Reset forgets the messages, commands and script.
func (s *Server) Reset() {
	s.mu.Lock()
	s.msgs, s.commands, s.script = nil, nil, map[Stage][]string{}
	s.mu.Unlock()
}

// Close stops the server and closes its connections.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for c := range s.open {
		c.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	return err
}

func (s *Server) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns++
		n := s.conns
		s.open[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.session(c, n)
			s.mu.Lock()
			delete(s.open, c)
			s.mu.Unlock()
		}()
	}
}

// session is one connection's state.
type session struct {
	s     *Server
	conn  net.Conn
	tp    *textproto.Conn
	n     int
	tls   bool
	auth  string
	from  string
	rcpts []string
	mail  bool
}

func (s *Server) session(c net.Conn, n int) {
	ss := &session{s: s, conn: c, tp: newConn(c), n: n, tls: s.opts.TLS == ImplicitTLS}
	defer ss.tp.Close()
	ss.reply("220 smtptest ESMTP ready")
	for {
		c.SetDeadline(time.Now().Add(s.opts.Timeout))
		line, err := ss.readLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		verb = strings.ToUpper(verb)
		s.mu.Lock()
		if verb == "AUTH" {
			s.commands = append(s.commands, "AUTH "+strings.Fields(arg + " x")[0])
		} else {
			s.commands = append(s.commands, line)
		}
		if s.opts.Discard && len(s.commands) > 1000 {
			s.commands = s.commands[len(s.commands)-100:]
		}
		s.mu.Unlock()
		if !ss.command(verb, arg) {
			return
		}
	}
}

// maxLine bounds a line, command or data (RFC 5321 allows 1000 bytes):
// a client that sends an endless line gets its connection closed instead
// of growing the server's memory.
const maxLine = 64 << 10

// newConn returns a textproto.Conn over c whose lines are bounded.
func newConn(c net.Conn) *textproto.Conn {
	tp := textproto.NewConn(c)
	tp.Reader = *textproto.NewReader(bufio.NewReader(&lineLimit{r: c}))
	return tp
}

// lineLimit fails a read once a line exceeds maxLine bytes.
type lineLimit struct {
	r   io.Reader
	run int // bytes since the last '\n'
}

func (l *lineLimit) Read(b []byte) (int, error) {
	n, err := l.r.Read(b)
	for _, c := range b[:n] {
		if c == '\n' {
			l.run = 0
		} else if l.run++; l.run > maxLine {
			return 0, errors.New("smtptest: line longer than 64 KiB")
		}
	}
	return n, err
}

// readLine reads one command line of at most 4 KiB.
func (ss *session) readLine() (string, error) {
	line, err := ss.tp.ReadLine()
	if err != nil {
		return "", err
	}
	if len(line) > 4096 {
		ss.reply("500 5.5.2 line too long")
		return "", errors.New("line too long")
	}
	return line, nil
}

func (ss *session) reply(line string) { ss.tp.PrintfLine("%s", line) }

// command runs one command; false ends the session.
func (ss *session) command(verb, arg string) bool {
	s := ss.s
	switch verb {
	case "EHLO":
		ss.resetTx()
		lines := []string{"250-smtptest greets " + arg, "250-8BITMIME", "250-ENHANCEDSTATUSCODES"}
		if s.opts.TLS == STARTTLS && !ss.tls {
			lines = append(lines, "250-STARTTLS")
		}
		if s.opts.Username != "" {
			lines = append(lines, "250-AUTH PLAIN LOGIN")
		}
		lines = append(lines, "250 SIZE "+fmt.Sprint(s.opts.MaxBytes))
		for _, l := range lines {
			ss.reply(l)
		}
	case "HELO":
		ss.resetTx()
		ss.reply("250 smtptest")
	case "STARTTLS":
		if s.opts.TLS != STARTTLS || ss.tls {
			ss.reply("502 5.5.1 STARTTLS not offered")
			return true
		}
		ss.reply("220 2.0.0 ready to start TLS")
		tc := tls.Server(ss.conn, s.tlsConf)
		tc.SetDeadline(time.Now().Add(s.opts.Timeout))
		if err := tc.Handshake(); err != nil {
			return false
		}
		ss.conn, ss.tp, ss.tls = tc, newConn(tc), true
		ss.auth = ""
		ss.resetTx()
	case "AUTH":
		ss.authenticate(arg)
	case "MAIL":
		switch {
		case s.opts.TLS == STARTTLS && s.opts.RequireTLS && !ss.tls:
			ss.reply("530 5.7.0 must issue STARTTLS first")
		case s.opts.Username != "" && ss.auth == "":
			ss.reply("530 5.7.0 authentication required")
		case !strings.HasPrefix(strings.ToUpper(arg), "FROM:<") || !strings.Contains(arg, ">"):
			ss.reply("501 5.5.4 syntax: MAIL FROM:<address> (RFC 5321: the path in angle brackets)")
		default:
			if r := s.next(StageMail); r != "" {
				ss.reply(r)
				return true
			}
			ss.resetTx()
			ss.from, ss.mail = path(arg[5:]), true
			ss.reply("250 2.1.0 ok")
		}
	case "RCPT":
		switch {
		case !ss.mail:
			ss.reply("503 5.5.1 MAIL first")
		case !strings.HasPrefix(strings.ToUpper(arg), "TO:<") || !strings.Contains(arg, ">"):
			ss.reply("501 5.5.4 syntax: RCPT TO:<address> (RFC 5321: the path in angle brackets)")
		default:
			if r := s.next(StageRcpt); r != "" {
				ss.reply(r)
				return true
			}
			ss.rcpts = append(ss.rcpts, path(arg[3:]))
			ss.reply("250 2.1.5 ok")
		}
	case "DATA":
		if !ss.mail || len(ss.rcpts) == 0 {
			ss.reply("503 5.5.1 RCPT first")
			return true
		}
		ss.reply("354 end data with <CR><LF>.<CR><LF>")
		ss.conn.SetDeadline(time.Now().Add(s.opts.Timeout))
		dr := ss.tp.DotReader()
		data, err := io.ReadAll(io.LimitReader(dr, int64(s.opts.MaxBytes)+1))
		if err != nil {
			return false
		}
		if len(data) > s.opts.MaxBytes {
			if _, err := io.Copy(io.Discard, dr); err != nil {
				return false
			}
			ss.reply("552 5.3.4 message too big")
			ss.resetTx()
			return true
		}
		if r := s.next(StageData); r != "" {
			ss.reply(r)
			ss.resetTx()
			return true
		}
		s.record(Message{From: ss.from, To: ss.rcpts, Data: crlf(data), TLS: ss.tls, Auth: ss.auth, Conn: ss.n})
		ss.resetTx()
		ss.reply("250 2.0.0 queued")
	case "RSET":
		ss.resetTx()
		ss.reply("250 2.0.0 ok")
	case "NOOP":
		ss.reply("250 2.0.0 ok")
	case "QUIT":
		ss.reply("221 2.0.0 bye")
		return false
	default:
		ss.reply("502 5.5.2 command not recognised")
	}
	return true
}

func (ss *session) resetTx() { ss.from, ss.rcpts, ss.mail = "", nil, false }

// authenticate runs AUTH PLAIN or LOGIN.
func (ss *session) authenticate(arg string) {
	s := ss.s
	if s.opts.Username == "" {
		ss.reply("502 5.5.1 AUTH not offered")
		return
	}
	mech, initial, _ := strings.Cut(arg, " ")
	var user, pass string
	switch strings.ToUpper(mech) {
	case "PLAIN":
		if initial == "" {
			ss.reply("334 ")
			l, err := ss.readLine()
			if err != nil {
				return
			}
			initial = l
		}
		b, err := base64.StdEncoding.DecodeString(initial)
		parts := strings.Split(string(b), "\x00")
		if err != nil || len(parts) != 3 {
			ss.reply("501 5.5.2 bad PLAIN response")
			return
		}
		user, pass = parts[1], parts[2]
	case "LOGIN":
		var ok bool
		if user, ok = ss.ask("VXNlcm5hbWU6", initial); !ok {
			return
		}
		if pass, ok = ss.ask("UGFzc3dvcmQ6", ""); !ok {
			return
		}
	default:
		ss.reply("504 5.5.4 mechanism not supported")
		return
	}
	if user != s.opts.Username || pass != s.opts.Password {
		ss.reply("535 5.7.8 authentication failed")
		return
	}
	ss.auth = user
	ss.reply("235 2.7.0 authenticated")
}

// ask sends a 334 challenge (unless given) and decodes the answer.
func (ss *session) ask(challenge, given string) (string, bool) {
	if given == "" {
		ss.reply("334 " + challenge)
		l, err := ss.readLine()
		if err != nil {
			return "", false
		}
		given = l
	}
	b, err := base64.StdEncoding.DecodeString(given)
	if err != nil {
		ss.reply("501 5.5.2 bad base64")
		return "", false
	}
	return string(b), true
}

// next pops the stage's next scripted reply, or "".
func (s *Server) next(stage Stage) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.script[stage]
	if len(q) == 0 {
		return ""
	}
	s.script[stage] = q[1:]
	return q[0]
}

func (s *Server) record(m Message) {
	s.mu.Lock()
	s.count++
	if !s.opts.Discard {
		s.msgs = append(s.msgs, m)
	}
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// path returns the address of "<addr> PARAMS" (the caller checked the
// brackets).
func path(arg string) string {
	arg = strings.TrimSpace(arg)
	return arg[1:strings.IndexByte(arg, '>')]
}

// crlf turns the dot reader's LF line endings back into CRLF.
func crlf(b []byte) []byte {
	return []byte(strings.ReplaceAll(string(b), "\n", "\r\n"))
}

// selfSigned makes a certificate for 127.0.0.1, ::1 and localhost.
func selfSigned() (tls.Certificate, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "smtptest"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool, nil
}

// DropConnections closes every open connection without a reply, as a
// server does with connections idle too long.
func (s *Server) DropConnections() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.open {
		c.Close()
	}
}
