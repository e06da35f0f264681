package engine

import (
	"bytes"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestAllocsPerRequest (issue 26): over a real loopback connection, a
// keep-alive GET costs the engine one allocation (the head's string) and
// nothing else; the handler here allocates nothing.
func TestAllocsPerRequest(t *testing.T) {
	c, hello := allocServer(t)
	req := []byte("GET /plaintext HTTP/1.1\r\nHost: localhost\r\nUser-Agent: bench\r\nAccept: */*\r\n\r\n")
	roundTrip := exchanger(t, c, req, hello, 1)
	allocs := testing.AllocsPerRun(200, roundTrip)
	t.Logf("%.2f allocations per request", allocs)
	if allocs > 1 {
		t.Errorf("%.2f allocations per request, want at most 1 (the head string)", allocs)
	}
}

var textPlain = []string{"text/plain"}

// exchanger returns a round trip on c, warmed up: it writes req and reads
// until answers bodies have arrived and the last ends the input read.
func exchanger(t *testing.T, c net.Conn, req, body []byte, answers int) func() {
	buf := make([]byte, 64<<10)
	roundTrip := func() {
		if _, err := c.Write(req); err != nil {
			t.Fatal(err)
		}
		n := 0
		for !bytes.HasSuffix(buf[:n], body) || bytes.Count(buf[:n], body) < answers {
			m, err := c.Read(buf[n:])
			if err != nil {
				t.Fatal(err)
			}
			n += m
		}
	}
	for range 10 {
		roundTrip()
	}
	return roundTrip
}

// allocServer starts an engine whose handler answers body with nothing
// allocated, and returns a keep-alive connection to it and the body; the
// test is skipped where allocation counts mean nothing.
func allocServer(t *testing.T) (net.Conn, []byte) {
	t.Helper()
	if raceEnabled || poisoning {
		t.Skip("allocation counts are not meaningful under -race or plinth_enginepoison (fresh requests)")
	}
	body := []byte("hello")
	_, addr := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = textPlain
		w.Write(body)
	}), func(c *Config) { c.IdleTimeout = time.Minute })
	return dial(t, addr), body
}

// TestAllocsPipelined: 16 pipelined GETs in one write share one copy of
// their heads (headString), so the batch costs the engine about one
// allocation, not 16.
func TestAllocsPipelined(t *testing.T) {
	c, hello := allocServer(t)
	const batch = 16
	req := bytes.Repeat([]byte("GET /plaintext HTTP/1.1\r\nHost: localhost\r\nUser-Agent: bench\r\n\r\n"), batch)
	roundTrip := exchanger(t, c, req, hello, batch)
	allocs := testing.AllocsPerRun(100, roundTrip)
	t.Logf("%.2f allocations per batch of %d", allocs, batch)
	// One copy when the batch arrives in one read; a batch split by the
	// network costs one more per piece.
	if allocs > 3 {
		t.Errorf("%.2f allocations per batch of %d pipelined requests, want at most 3", allocs, batch)
	}
}
