// Package wstest is a WebSocket client written frame by frame, for tests
// that must send what a well-behaved library never would: unmasked frames,
// oversized or fragmented control frames, reserved opcodes and RSV bits. The
// ws module's own tests and examples/realtime's use it. It is not a client
// for applications: it fails the test at the first error.
package wstest

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// RawClient is a WebSocket client written frame by frame. Conn is the
// connection and R the reader over it, past the handshake's response.
type RawClient struct {
	t    testing.TB
	Conn net.Conn
	R    *bufio.Reader
}

// New returns a client over conn, already upgraded by the caller (over TLS,
// say), reading through r.
func New(t testing.TB, conn net.Conn, r *bufio.Reader) *RawClient {
	return &RawClient{t: t, Conn: conn, R: r}
}

// HandshakeKey returns a fresh, valid Sec-WebSocket-Key.
func HandshakeKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.StdEncoding.EncodeToString(b[:])
}

// Dial opens a connection to addr and upgrades it at path; extra are
// header lines added to the request ("Origin: http://x").
func Dial(t testing.TB, addr, path string, extra ...string) *RawClient {
	t.Helper()
	c, res := TryDial(t, addr, path, extra...)
	if res.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake: status %d, want 101", res.StatusCode)
	}
	return c
}

// TryDial sends the upgrade request and returns the client with the
// server's answer, whatever its status.
func TryDial(t testing.TB, addr, path string, extra ...string) (*RawClient, *http.Response) {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	req := "GET " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + HandshakeKey() + "\r\n"
	for _, h := range extra {
		req += h + "\r\n"
	}
	req += "\r\n"
	if _, err := io.WriteString(nc, req); err != nil {
		t.Fatal(err)
	}
	_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(nc)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &RawClient{t: t, Conn: nc, R: br}, res
}

// Frame writes one frame: fin, rsv bits (0-7), opcode, payload, masked or not.
func (c *RawClient) Frame(fin bool, rsv byte, op byte, payload []byte, masked bool) {
	c.t.Helper()
	b := []byte{rsv<<4 | op}
	if fin {
		b[0] |= 0x80
	}
	var m byte
	if masked {
		m = 0x80
	}
	switch n := len(payload); {
	case n < 126:
		b = append(b, m|byte(n))
	case n < 1<<16:
		b = append(b, m|126, 0, 0)
		binary.BigEndian.PutUint16(b[2:], uint16(n))
	default:
		b = append(b, m|127, 0, 0, 0, 0, 0, 0, 0, 0)
		binary.BigEndian.PutUint64(b[2:], uint64(n))
	}
	p := append([]byte(nil), payload...)
	if masked {
		var key [4]byte
		_, _ = rand.Read(key[:])
		b = append(b, key[:]...)
		for i := range p {
			p[i] ^= key[i%4]
		}
	}
	_ = c.Conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Conn.Write(append(b, p...)); err != nil {
		c.t.Fatalf("write frame: %v", err)
	}
}

// Send writes a masked, final frame.
func (c *RawClient) Send(op byte, payload []byte) { c.Frame(true, 0, op, payload, true) }

// Read reads one frame from the server (never masked).
func (c *RawClient) Read() (fin bool, op byte, payload []byte, err error) {
	_ = c.Conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var h [2]byte
	if _, err = io.ReadFull(c.R, h[:]); err != nil {
		return
	}
	fin, op = h[0]&0x80 != 0, h[0]&0x0f
	if h[1]&0x80 != 0 {
		return fin, op, nil, fmt.Errorf("server frame is masked")
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var x [2]byte
		if _, err = io.ReadFull(c.R, x[:]); err != nil {
			return
		}
		n = uint64(binary.BigEndian.Uint16(x[:]))
	case 127:
		var x [8]byte
		if _, err = io.ReadFull(c.R, x[:]); err != nil {
			return
		}
		n = binary.BigEndian.Uint64(x[:])
	}
	payload = make([]byte, n)
	_, err = io.ReadFull(c.R, payload)
	return
}

// Message reads a whole data message (joining continuation frames),
// skipping nothing: a control frame in between is returned as is.
func (c *RawClient) Message() (op byte, payload []byte) {
	c.t.Helper()
	for {
		fin, o, p, err := c.Read()
		if err != nil {
			c.t.Fatalf("read: %v", err)
		}
		if op == 0 {
			op = o
		}
		payload = append(payload, p...)
		if fin {
			return op, payload
		}
	}
}

// ExpectClose reads until a close frame and returns its code; -1 when the
// connection ended without one.
func (c *RawClient) ExpectClose() int {
	c.t.Helper()
	for {
		_, op, p, err := c.Read()
		if err != nil {
			return -1
		}
		if op == 0x8 {
			if len(p) < 2 {
				return 1005
			}
			return int(binary.BigEndian.Uint16(p))
		}
	}
}

// CloseReply answers a close frame with code.
func (c *RawClient) CloseReply(code int) {
	b := binary.BigEndian.AppendUint16(nil, uint16(code))
	c.Frame(true, 0, 0x8, b, true)
}
