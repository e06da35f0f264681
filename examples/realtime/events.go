package main

import (
	"errors"
	"strconv"
	"time"

	"github.com/plinth-go/plinth"
)

// Tick and heartbeat periods of the /events stream.
const (
	tickEvery      = 100 * time.Millisecond
	heartbeatEvery = 2 * time.Second
)

// maxEventID is the largest id the stream sends: 2^53 - 1, JavaScript's
// Number.MAX_SAFE_INTEGER, so that a page reading the ids as numbers reads
// them exactly. At 10 ids a second it is never reached from 1 (28 million
// years); it bounds what a client may claim to resume from, so that the
// next id never wraps past the int64 range to a negative number
// (Last-Event-ID: 9223372036854775807 did).
const maxEventID = 1<<53 - 1

// events streams an "event: tick" about every 100 ms, with ids 1, 2, 3 ...
// A client reconnecting with Last-Event-ID: N (or ?lastEventId=N) resumes
// at N+1. An id that is not a whole number from 0 to maxEventID-1 (text, a
// negative number, one at or past maxEventID, one past the int64 range)
// is ignored, without error: the stream starts from 1, as for a new
// client, never at a wrapped or negative id. The stream ends rather than
// send an id past maxEventID. A ":" comment goes out every 2 s even though
// ticks keep the stream busy, so that a client sees the heartbeat. The
// drain sends "event: shutdown" and ends the stream (s.Done).
func events(c *plinth.Ctx) error {
	s, err := c.SSE(plinth.SSEConfig{Heartbeat: heartbeatEvery})
	if err != nil {
		return err
	}
	next := resumeAfter(s.LastEventID())
	send := func() error {
		if next > maxEventID {
			return errIDsExhausted
		}
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

// errIDsExhausted ends a stream whose next id would pass maxEventID.
var errIDsExhausted = errors.New("events: no id left below maxEventID")

// resumeAfter returns the first id of a stream resumed after lastID (the
// Last-Event-ID header or the lastEventId parameter): lastID+1 when it is
// a whole number from 0 to maxEventID-1, else 1.
func resumeAfter(lastID string) int64 {
	n, err := strconv.ParseInt(lastID, 10, 64)
	if err != nil || n < 0 || n >= maxEventID {
		return 1
	}
	return n + 1
}
