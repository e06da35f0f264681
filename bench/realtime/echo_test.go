package realtime

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// echoClient is a raw, allocation-free client: one masked text frame of a
// fixed payload written, its echo read back, in lock-step.
type echoClient struct {
	nc    net.Conn
	br    *bufio.Reader
	frame []byte // the masked frame, built once
	buf   []byte // the echo's payload
	size  int
}

func dialEcho(tb testing.TB, addr string, size int) *echoClient {
	tb.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	var k [16]byte
	_, _ = rand.Read(k[:])
	req := "GET /ws HTTP/1.1\r\nHost: " + addr + "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + base64.StdEncoding.EncodeToString(k[:]) + "\r\n\r\n"
	if _, err := io.WriteString(nc, req); err != nil {
		tb.Fatal(err)
	}
	br := bufio.NewReaderSize(nc, 64<<10)
	res, err := http.ReadResponse(br, nil)
	if err != nil || res.StatusCode != http.StatusSwitchingProtocols {
		tb.Fatalf("handshake: %v %v", res, err)
	}
	payload := []byte(strings.Repeat("0123456789abcdef", size/16+1)[:size])
	frame := []byte{0x81}
	switch {
	case size < 126:
		frame = append(frame, 0x80|byte(size))
	default:
		frame = append(frame, 0x80|126, byte(size>>8), byte(size))
	}
	key := [4]byte{1, 2, 3, 4}
	frame = append(frame, key[:]...)
	for i, b := range payload {
		frame = append(frame, b^key[i%4])
	}
	return &echoClient{nc: nc, br: br, frame: frame, buf: make([]byte, size), size: size}
}

func (c *echoClient) roundTrip() error {
	if _, err := c.nc.Write(c.frame); err != nil {
		return err
	}
	var h [4]byte
	if _, err := io.ReadFull(c.br, h[:2]); err != nil {
		return err
	}
	n := int(h[1] & 0x7f)
	if n == 126 {
		if _, err := io.ReadFull(c.br, h[2:4]); err != nil {
			return err
		}
		n = int(binary.BigEndian.Uint16(h[2:4]))
	}
	if h[0] != 0x81 || n != c.size {
		return fmt.Errorf("echo frame %#x of %d bytes", h[0], n)
	}
	_, err := io.ReadFull(c.br, c.buf)
	return err
}

// BenchmarkEcho: one connection, lock-step echo of a text message, every
// library's server in this process over loopback. allocs/op are the
// server's per echoed message (the client allocates nothing).
//
//	cd bench/realtime && go test -run '^$' -bench Echo -benchmem -count 10 | tee echo.txt; benchstat -col /lib echo.txt
func BenchmarkEcho(b *testing.B) {
	for _, size := range []int{64, 1024} {
		for _, lib := range append(Libs[:len(Libs):len(Libs)], "plinth-noutf8") {
			b.Run(fmt.Sprintf("size=%d/lib=%s", size, lib), func(b *testing.B) {
				srv := httptest.NewServer(EchoHandler(lib, nil))
				defer srv.Close()
				c := dialEcho(b, srv.Listener.Addr().String(), size)
				defer c.nc.Close()
				for range 100 {
					if err := c.roundTrip(); err != nil {
						b.Fatal(err)
					}
				}
				b.SetBytes(int64(size))
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if err := c.roundTrip(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
