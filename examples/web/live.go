package main

import (
	"context"
	"os"
	"strconv"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/ws"
)

// tickEvery is the period of the /events stream's ticks.
const tickEvery = time.Second

// events streams "event: tick" every second, its data the build and the
// process serving it ({"version","pid"}), with ids 1, 2, 3 ... When the
// instance drains (a deploy, a SIGTERM), the stream gets "event: shutdown"
// and ends: the browser's EventSource reconnects, to another instance.
func events(c *plinth.Ctx) error {
	s, err := c.SSE(plinth.SSEConfig{})
	if err != nil {
		return err
	}
	data := `{"version":` + strconv.Quote(version) + `,"pid":` + strconv.Itoa(os.Getpid()) + `}`
	t := time.NewTicker(tickEvery)
	defer t.Stop()
	for id := 1; ; id++ {
		if err := s.Send(plinth.Event{ID: strconv.Itoa(id), Event: "tick", Data: data}); err != nil {
			return nil // the client left, or the stream ended
		}
		select {
		case <-s.Done():
			return nil // the client left, or the drain sent "event: shutdown"
		case <-t.C:
		}
	}
}

// echo sends every WebSocket message back. When the instance drains, the
// connection is closed with 1001 (going away); the client reconnects, to
// another instance.
func echo(c *plinth.Ctx) error {
	conn, err := ws.Accept(c, ws.Config{})
	if err != nil {
		return err // 403, 426, 503 ... rendered as a problem
	}
	conn.Detach(func(conn *ws.Conn) {
		ctx := context.Background()
		for {
			typ, msg, err := conn.Read(ctx)
			if err != nil {
				return // the peer closed, the drain sent 1001, or a protocol error was answered
			}
			if err := conn.Write(ctx, typ, msg); err != nil {
				return
			}
		}
	})
	return nil
}
