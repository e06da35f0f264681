package ws_test

import (
	"github.com/plinth-go/plinth/ws/wstest"
	"io"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
	"github.com/plinth-go/plinth/ws"
)

// echoAllocBudget is the allocations per echoed 64 B text message, server
// side: those of github.com/coder/websocket underneath (the message read is
// allocated; bench/realtime BenchmarkEcho shows the raw library's count
// beside this package's). The layer adds none: the request's context is
// watched once per connection, not per call, and the UTF-8 check allocates
// nothing.
const echoAllocBudget = 2

func TestEchoAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts differ under -race; the plain run checks the budget")
	}
	app := plinth.New()
	app.Get("/ws", echo(ws.Config{}))
	s := serve(t, app)
	c := wstest.Dial(t, s.addr, "/ws")
	// One masked 64 B text frame, built once, and a buffer for its echo:
	// the client allocates nothing per message.
	frame := []byte{0x81, 0x80 | 64, 0, 0, 0, 0}
	frame = append(frame, []byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")...)
	echoBuf := make([]byte, 2+64)
	roundTrip := func() {
		if _, err := c.Conn.Write(frame); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c.R, echoBuf); err != nil {
			t.Fatal(err)
		}
	}
	for range 50 {
		roundTrip()
	}
	if string(echoBuf[2:]) != string(frame[6:]) {
		t.Fatalf("echo %q", echoBuf[2:])
	}
	_ = c.Conn.SetDeadline(time.Time{})
	if got := testing.AllocsPerRun(500, roundTrip); got > echoAllocBudget {
		t.Errorf("%.1f allocations per echoed 64 B message, budget %d", got, echoAllocBudget)
	}
}
