package engine

import (
	"bytes"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/plinth-go/plinth/racetest"
)

// TestAllocsPerRequest: over a real loopback connection,
// a keep-alive GET costs the engine four allocations: the head's string,
// the request's exchange (the *http.Request, its URL, context and Body in
// one object) and its header map (a map and its first group). An engine that
// reused the request cost one per GET; a fresh request is what
// keeps a goroutine that outlives its handler from reading the next
// client's request. The handler here allocates nothing.
func TestAllocsPerRequest(t *testing.T) {
	c, hello := allocServer(t)
	req := []byte("GET /plaintext HTTP/1.1\r\nHost: localhost\r\nUser-Agent: bench\r\nAccept: */*\r\n\r\n")
	roundTrip := exchanger(t, c, req, hello, 1)
	allocs := testing.AllocsPerRun(200, roundTrip)
	t.Logf("%.2f allocations per request", allocs)
	if allocs > perRequestAllocs+1 {
		t.Errorf("%.2f allocations per request, want at most %d (the head string, the exchange, the header map)", allocs, perRequestAllocs+1)
	}
}

// perRequestAllocs is what every request costs the engine besides its
// head's string: its exchange, and its header map with its first group.
const perRequestAllocs = 3

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
	if racetest.Enabled || poisoning {
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
// their heads (headString), so the batch costs the engine one head's
// allocation, not 16, besides each request's own (perRequestAllocs).
func TestAllocsPipelined(t *testing.T) {
	c, hello := allocServer(t)
	const batch = 16
	req := bytes.Repeat([]byte("GET /plaintext HTTP/1.1\r\nHost: localhost\r\nUser-Agent: bench\r\n\r\n"), batch)
	roundTrip := exchanger(t, c, req, hello, batch)
	allocs := testing.AllocsPerRun(100, roundTrip)
	t.Logf("%.2f allocations per batch of %d", allocs, batch)
	// One copy when the batch arrives in one read; a batch split by the
	// network costs one more per piece.
	if want := float64(batch*perRequestAllocs + 3); allocs > want {
		t.Errorf("%.2f allocations per batch of %d pipelined requests, want at most %v", allocs, batch, want)
	}
}
