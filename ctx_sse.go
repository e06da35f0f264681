package plinth

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults of SSEConfig, applied to its zero fields.
const (
	DefaultSSEHeartbeat    = 15 * time.Second
	DefaultSSEWriteTimeout = 10 * time.Second
)

// SSEConfig configures a server-sent event stream (Ctx.SSE). Its zero value
// means the documented defaults.
type SSEConfig struct {
	// Heartbeat is how long the stream may stay silent before a comment
	// line (":") is sent, so that proxies and the client keep the
	// connection and a client that left is noticed. It is a timer per
	// stream (time.AfterFunc, re-armed, no goroutine), and any Send or
	// Comment counts as activity. Default 15s (DefaultSSEHeartbeat); Off
	// disables it.
	Heartbeat time.Duration

	// Shutdown is the final event sent to every open stream when the App
	// starts draining (App.Serve or Run was told to stop); Done then closes
	// and the request's context is cancelled. Default Event{Event:
	// "shutdown"} (with an empty data line, which EventSource dispatches as
	// an event of that name with data "").
	Shutdown Event

	// WriteTimeout bounds each write to the client (Send, Comment, the
	// heartbeat, the shutdown event): a client that stops reading makes the
	// write fail after this long instead of blocking the handler, and the
	// stream ends. Set per write with http.ResponseController; a writer
	// that supports no deadline (a test recorder) is not bounded. Default
	// 10s (DefaultSSEWriteTimeout); Off disables it.
	WriteTimeout time.Duration
}

// Event is one server-sent event. The fields follow the HTML standard's
// event stream format: ID and Event must not contain CR or LF (and ID no
// NUL), or Send returns ErrSSEInvalidEvent; Data may hold any text, each of
// its lines (split at CRLF, CR or LF) becoming one "data:" line, so the
// client sees Data with its line breaks as LF. An empty ID or Event writes
// no field (an empty ID cannot reset the client's last event ID); Retry,
// when positive, writes the client's reconnection delay in whole
// milliseconds. Every Event is written with at least one data line, so
// EventSource dispatches it, with data "" when Data is empty.
type Event struct {
	ID    string
	Event string
	Data  string
	Retry time.Duration
}

// ErrSSEClosed is returned by Send and Comment once the stream has ended:
// the client left, the App's drain sent the final event, a write failed or
// timed out, or the handler returned.
var ErrSSEClosed = errors.New("plinth: the event stream has ended")

// ErrSSEInvalidEvent is returned by Send for an Event whose ID or Event name
// contains CR or LF, or whose ID contains NUL; nothing is written and the
// stream stays open.
var ErrSSEInvalidEvent = errors.New("plinth: SSE event ID or name contains CR, LF or NUL")

// SSEStream is a server-sent event stream opened by Ctx.SSE. Its methods are
// safe for concurrent use (writes are serialised with the heartbeat and the
// drain), but the stream, like the Ctx, must not be used after the handler
// returns: it is closed then.
type SSEStream struct {
	mu      sync.Mutex
	w       http.ResponseWriter // the Ctx's writer when the stream opened (middleware wrappers included)
	flusher http.Flusher        // w's Flush, nil when it has none
	rc      *http.ResponseController
	ctx     context.Context
	cancel  context.CancelCauseFunc
	dl      *deadlineCtx // the timeout layer's context, cancelled too at the drain
	app     *App
	lastID  string

	heartbeat    time.Duration
	writeTimeout time.Duration
	shutdown     Event

	timer     *time.Timer // heartbeat
	lastWrite time.Time
	deadline  bool // a write deadline was set: clear it at the end
	closed    bool // no more writes: ended, failed or drained
	ended     bool // the handler returned
	buf       []byte
}

// SSE starts a server-sent event stream as the response: it writes the
// headers (Content-Type: text/event-stream, Cache-Control: no-cache,
// X-Accel-Buffering: no, so that nginx does not buffer it) and flushes them,
// lifts the handler timeout (Ctx.LiftDeadline), starts the heartbeat timer
// and registers the stream with the App, whose drain ends it with
// cfg.Shutdown. It returns ErrResponseStarted if the response has started.
//
// After it, Ctx.Context (and Request().Context()) is a context that also
// ends with the stream: when the client leaves, when the drain sent the
// final event, or when a write failed. A handler typically loops on
//
//	select { case <-s.Done(): return nil; case m := <-updates: err = s.Send(...) }
//
// Every Send and Comment is flushed at once through the writer chain
// (compress flushes its encoder per event; ETag passes streams through).
// A stream opened while the App is draining gets the shutdown event at once
// and is already done. Cost: the stream, its context and the request copy
// that carries it, and a timer, per stream; a Send allocates nothing
// (TestSSESendAllocs).
func (c *Ctx) SSE(cfg SSEConfig) (*SSEStream, error) {
	if c.Written() {
		return nil, ErrResponseStarted
	}
	c.LiftDeadline()
	if c.dl != nil {
		c.dl.handOut() // the stream cancels it at the drain
	}
	s := &SSEStream{
		w: c.w, app: c.app, dl: c.dl,
		heartbeat:    cfg.Heartbeat,
		writeTimeout: cfg.WriteTimeout,
		shutdown:     cfg.Shutdown,
	}
	if s.heartbeat == 0 {
		s.heartbeat = DefaultSSEHeartbeat
	}
	if s.writeTimeout == 0 {
		s.writeTimeout = DefaultSSEWriteTimeout
	}
	if s.shutdown == (Event{}) {
		s.shutdown = Event{Event: "shutdown"}
	}
	s.lastID = c.req.Header.Get("Last-Event-Id")
	if s.lastID == "" {
		s.lastID = c.Query("lastEventId")
	}
	s.flusher, _ = s.w.(http.Flusher)
	s.rc = http.NewResponseController(c.rw.w) // deadlines on the server's own writer
	s.ctx, s.cancel = context.WithCancelCause(c.Context())
	c.SetContext(s.ctx)

	h := s.w.Header()
	h["Content-Type"] = []string{"text/event-stream"}
	h["Cache-Control"] = []string{"no-cache"}
	h["X-Accel-Buffering"] = []string{"no"}
	delete(h, "Content-Length")
	s.mu.Lock()
	s.w.WriteHeader(http.StatusOK)
	err := s.flushLocked(time.Now())
	s.mu.Unlock()
	if err != nil {
		return s, nil // ended already: Done is closed, Send returns ErrSSEClosed
	}
	c.sse = s
	if s.heartbeat > 0 {
		s.mu.Lock()
		s.timer = time.AfterFunc(s.heartbeat, s.beat)
		s.mu.Unlock()
	}
	if s.app != nil && !s.app.sse.add(s) {
		s.drain() // the App drains already
	}
	return s, nil
}

// LastEventID returns the Last-Event-ID request header as the client sent
// it (event IDs are strings; it is not validated), else the lastEventId
// query parameter (for clients that cannot set headers), else "".
func (s *SSEStream) LastEventID() string { return s.lastID }

// Done is closed when the stream must end: the client left, the App's drain
// sent the final event, or a write failed. The handler should then return.
func (s *SSEStream) Done() <-chan struct{} { return s.ctx.Done() }

// Send writes e and flushes it to the client. It returns ErrSSEInvalidEvent
// for a bad ID or Event name (nothing written), ErrSSEClosed once the stream
// has ended, or the write error that ends it (a client gone, or not reading
// within WriteTimeout).
func (s *SSEStream) Send(e Event) error {
	if strings.ContainsAny(e.ID, "\r\n\x00") || strings.ContainsAny(e.Event, "\r\n") {
		return ErrSSEInvalidEvent
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.ctx.Err() != nil {
		return ErrSSEClosed
	}
	s.buf = appendEvent(s.buf[:0], &e)
	return s.writeLocked()
}

// Comment writes text as a comment (each of its lines after ":"), which
// clients ignore, and flushes it. It returns ErrSSEClosed once the stream
// has ended, or the write error that ends it.
func (s *SSEStream) Comment(text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.ctx.Err() != nil {
		return ErrSSEClosed
	}
	s.buf = appendComment(s.buf[:0], text)
	return s.writeLocked()
}

// writeLocked writes s.buf under a write deadline and flushes it; a failure
// ends the stream. s.mu is held.
func (s *SSEStream) writeLocked() error {
	now := time.Now()
	if s.writeTimeout > 0 {
		if s.rc.SetWriteDeadline(now.Add(s.writeTimeout)) == nil {
			s.deadline = true
		}
	}
	if _, err := s.w.Write(s.buf); err != nil {
		s.failLocked(err)
		return err
	}
	return s.flushLocked(now)
}

// flushLocked flushes the writer chain; a failure ends the stream.
func (s *SSEStream) flushLocked(now time.Time) error {
	var err error
	if s.flusher != nil {
		s.flusher.Flush()
	} else {
		err = http.NewResponseController(s.w).Flush()
	}
	if err == nil {
		err = s.ctx.Err() // a flush that failed is seen as the client gone
	}
	if err != nil {
		s.failLocked(err)
		return err
	}
	s.lastWrite = now
	return nil
}

// failLocked ends the stream after a failed write.
func (s *SSEStream) failLocked(err error) {
	s.closed = true
	s.cancel(err)
}

// beat is the heartbeat timer's callback: a comment when the stream has been
// silent for the interval, then the timer is re-armed for the rest of the
// next one.
func (s *SSEStream) beat() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.ctx.Err() != nil {
		return
	}
	if idle := time.Since(s.lastWrite); idle < s.heartbeat {
		s.timer.Reset(s.heartbeat - idle)
		return
	}
	s.buf = append(s.buf[:0], ":\n\n"...)
	if s.writeLocked() == nil {
		s.timer.Reset(s.heartbeat)
	}
}

// drainWriteTimeout bounds the shutdown event's write, so that clients that
// do not read cannot hold the drain.
const drainWriteTimeout = time.Second

// drain sends the final event and ends the stream.
func (s *SSEStream) drain() {
	s.mu.Lock()
	if !s.closed && s.ctx.Err() == nil {
		s.buf = appendEvent(s.buf[:0], &s.shutdown)
		d := drainWriteTimeout
		if s.writeTimeout > 0 {
			d = min(d, s.writeTimeout)
		}
		if s.rc.SetWriteDeadline(time.Now().Add(d)) == nil {
			s.deadline = true
		}
		if _, err := s.w.Write(s.buf); err == nil {
			_ = s.flushLocked(time.Now())
		}
	}
	s.closed = true
	s.mu.Unlock()
	s.cancel(errSSEDrained)
	if s.dl != nil {
		s.dl.cancel(errSSEDrained) // a handler that waits on the context it had before SSE
	}
}

var errSSEDrained = errors.New("plinth: the App is draining: the event stream was ended")

// end closes the stream when its handler returns: no write may follow.
func (s *SSEStream) end() {
	s.mu.Lock()
	s.closed, s.ended = true, true
	if s.timer != nil {
		s.timer.Stop()
	}
	if s.deadline {
		_ = s.rc.SetWriteDeadline(time.Time{}) // the connection may serve more requests
	}
	s.mu.Unlock()
	s.cancel(ErrSSEClosed)
	if s.app != nil {
		s.app.sse.remove(s)
	}
}

// endSSE closes the stream c opened, if any, when the handler returns.
func (c *Ctx) endSSE() {
	if s := c.sse; s != nil {
		c.sse = nil
		s.end()
	}
}

// appendEvent appends e in the event stream format.
func appendEvent(b []byte, e *Event) []byte {
	if e.ID != "" {
		b = append(append(append(b, "id: "...), e.ID...), '\n')
	}
	if e.Event != "" {
		b = append(append(append(b, "event: "...), e.Event...), '\n')
	}
	if e.Retry > 0 {
		b = strconv.AppendInt(append(b, "retry: "...), e.Retry.Milliseconds(), 10)
		b = append(b, '\n')
	}
	b = appendLines(b, "data: ", e.Data)
	return append(b, '\n')
}

// appendComment appends text as comment lines and a blank line.
func appendComment(b []byte, text string) []byte {
	return append(appendLines(b, ": ", text), '\n')
}

// appendLines appends each line of text (split at CRLF, CR or LF) after
// prefix, one line each.
func appendLines(b []byte, prefix, text string) []byte {
	for {
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			return append(append(append(b, prefix...), text...), '\n')
		}
		b = append(append(append(b, prefix...), text[:i]...), '\n')
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			i++
		}
		text = text[i+1:]
	}
}

// sseRegistry is the App's set of open streams, ended by the drain: one
// set, not a goroutine per stream waiting for the drain.
type sseRegistry struct {
	mu       sync.Mutex
	streams  map[*SSEStream]struct{}
	draining bool
}

// add registers s, or reports false if the App drains already.
func (r *sseRegistry) add(s *SSEStream) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.draining {
		return false
	}
	if r.streams == nil {
		r.streams = make(map[*SSEStream]struct{})
	}
	r.streams[s] = struct{}{}
	return true
}

func (r *sseRegistry) remove(s *SSEStream) {
	r.mu.Lock()
	delete(r.streams, s)
	r.mu.Unlock()
}

// drainWorkers bounds the goroutines that send the shutdown events.
const drainWorkers = 64

// shutdown sends every open stream its final event and ends it, from a few
// goroutines (a client that does not read costs at most drainWriteTimeout),
// and returns without waiting: the server's drain waits for the handlers.
func (r *sseRegistry) shutdown() {
	r.mu.Lock()
	r.draining = true
	list := make([]*SSEStream, 0, len(r.streams))
	for s := range r.streams {
		list = append(list, s)
	}
	r.mu.Unlock()
	if len(list) == 0 {
		return
	}
	ch := make(chan *SSEStream)
	for range min(len(list), drainWorkers) {
		go func() {
			for s := range ch {
				s.drain()
			}
		}()
	}
	go func() {
		for _, s := range list {
			ch <- s
		}
		close(ch)
	}()
}
