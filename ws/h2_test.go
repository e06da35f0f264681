package ws_test

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"encoding/pem"
	"github.com/plinth-go/plinth/ws/wstest"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/plinth-go/plinth/ws"
)

// writeCert writes a self-signed certificate for 127.0.0.1 and returns the
// paths of the certificate and key files.
func writeCert(t *testing.T) (string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cert, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, keyFile
}

// h2Settings sends the HTTP/2 preface on nc and returns the server's first
// SETTINGS frame as id -> value.
func h2Settings(t *testing.T, nc net.Conn) map[uint16]uint32 {
	t.Helper()
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(nc, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"+"\x00\x00\x00\x04\x00\x00\x00\x00\x00"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(nc)
	for {
		var h [9]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			t.Fatalf("reading the server's frames: %v", err)
		}
		n := int(h[0])<<16 | int(h[1])<<8 | int(h[2])
		p := make([]byte, n)
		if _, err := io.ReadFull(br, p); err != nil {
			t.Fatal(err)
		}
		if h[3] != 0x4 || h[4]&0x1 != 0 { // not SETTINGS, or its ACK
			continue
		}
		s := map[uint16]uint32{}
		for i := 0; i+6 <= len(p); i += 6 {
			s[binary.BigEndian.Uint16(p[i:])] = binary.BigEndian.Uint32(p[i+2:])
		}
		return s
	}
}

// settingsEnableConnectProtocol is SETTINGS_ENABLE_CONNECT_PROTOCOL (RFC
// 8441), which would advertise WebSocket over HTTP/2 extended CONNECT.
const settingsEnableConnectProtocol = 0x8

// With TLS (HTTP/2 offered by ALPN) and with h2c, the server does not
// advertise extended CONNECT, and the WebSocket upgrade runs over HTTP/1.1;
// an HTTP/2 request to the endpoint gets 426.
func TestHTTP2KeepsUpgradeOnHTTP1(t *testing.T) {
	t.Parallel()
	cert, key := writeCert(t)
	app := newApp(ws.Config{})
	app.Config.TLSCertFile, app.Config.TLSKeyFile = cert, key
	app.Config.H2C = true
	s := serve(t, app)
	var nc net.Conn
	for deadline := time.Now().Add(5 * time.Second); ; {
		var err error
		nc, err = tls.Dial("tcp", s.addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	defer nc.Close()
	if p := nc.(*tls.Conn).ConnectionState().NegotiatedProtocol; p != "h2" {
		t.Fatalf("ALPN chose %q, want h2 (HTTP/2 must be on for this test)", p)
	}
	if v, ok := h2Settings(t, nc)[settingsEnableConnectProtocol]; ok && v != 0 {
		t.Error("HTTP/2 over TLS advertises SETTINGS_ENABLE_CONNECT_PROTOCOL")
	}

	// An HTTP/2 client reaching the endpoint gets 426, not an upgrade.
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true,
	}}
	res, err := client.Get("https://" + s.addr + "/ws")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.ProtoMajor != 2 || res.StatusCode != http.StatusUpgradeRequired {
		t.Errorf("HTTP/2 GET /ws: %s %d, want HTTP/2 426", res.Proto, res.StatusCode)
	}

	// ALPN http/1.1: the upgrade works over TLS.
	tc, err := tls.Dial("tcp", s.addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	if _, err := io.WriteString(tc, "GET /ws HTTP/1.1\r\nHost: "+s.addr+"\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"+
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: "+wstest.HandshakeKey()+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(tc)
	up, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if up.StatusCode != 101 {
		t.Fatalf("upgrade over TLS: status %d", up.StatusCode)
	}
	c := wstest.New(t, tc, br)
	c.Send(0x1, []byte("over tls"))
	if op, p := c.Message(); op != 0x1 || string(p) != "over tls" {
		t.Errorf("echo over TLS: op %d %q", op, p)
	}
}

func TestH2CKeepsUpgradeOnHTTP1(t *testing.T) {
	t.Parallel()
	app := newApp(ws.Config{})
	app.Config.H2C = true
	s := serve(t, app)
	nc, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if v, ok := h2Settings(t, nc)[settingsEnableConnectProtocol]; ok && v != 0 {
		t.Error("h2c advertises SETTINGS_ENABLE_CONNECT_PROTOCOL")
	}
	c := wstest.Dial(t, s.addr, "/ws")
	c.Send(0x1, []byte("h2c server, HTTP/1.1 upgrade"))
	if op, p := c.Message(); op != 0x1 || string(p) != "h2c server, HTTP/1.1 upgrade" {
		t.Errorf("echo: op %d %q", op, p)
	}
}
