package main

import (
	"strconv"
	"time"

	"github.com/plinth-go/plinth"
)

// Tick and heartbeat periods of the /events stream.
const (
	tickEvery      = 100 * time.Millisecond
	heartbeatEvery = 2 * time.Second
)

// events streams an "event: tick" about every 100 ms, with ids 1, 2, 3 ...
// A client reconnecting with Last-Event-ID: N (or ?lastEventId=N) resumes
// at N+1; an id that is not a whole number starts from 1, without error.
// A ":" comment goes out every 2 s even though ticks keep the stream busy,
// so that a client sees the heartbeat. The drain sends "event: shutdown"
// and ends the stream (s.Done).
func events(c *plinth.Ctx) error {
	s, err := c.SSE(plinth.SSEConfig{Heartbeat: heartbeatEvery})
	if err != nil {
		return err
	}
	next := int64(1)
	if n, err := strconv.ParseInt(s.LastEventID(), 10, 64); err == nil && n >= 0 {
		next = n + 1
	}
	send := func() error {
		id := strconv.FormatInt(next, 10)
		next++
		return s.Send(plinth.Event{ID: id, Event: "tick", Data: id})
	}
	if err := send(); err != nil {
		return nil
	}
	ticks := time.NewTicker(tickEvery)
	defer ticks.Stop()
	beats := time.NewTicker(heartbeatEvery)
	defer beats.Stop()
	for {
		var err error
		select {
		case <-s.Done():
			return nil // the client left, or the drain sent "event: shutdown"
		case <-beats.C:
			err = s.Comment("heartbeat")
		case <-ticks.C:
			err = send()
		}
		if err != nil {
			return nil
		}
	}
}
