package plinth

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestSSEFormat(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    Event
		want string
	}{
		{"data only", Event{Data: "hello"}, "data: hello\n\n"},
		{"empty data", Event{}, "data: \n\n"},
		{"all fields", Event{ID: "7", Event: "tick", Data: "x", Retry: 1500 * time.Millisecond}, "id: 7\nevent: tick\nretry: 1500\ndata: x\n\n"},
		{"LF", Event{Data: "a\nb"}, "data: a\ndata: b\n\n"},
		{"CR", Event{Data: "a\rb"}, "data: a\ndata: b\n\n"},
		{"CRLF", Event{Data: "a\r\nb"}, "data: a\ndata: b\n\n"},
		{"LF LF", Event{Data: "a\n\nb"}, "data: a\ndata: \ndata: b\n\n"},
		{"CR LF apart", Event{Data: "a\r\rb"}, "data: a\ndata: \ndata: b\n\n"},
		{"trailing LF", Event{Data: "a\n"}, "data: a\ndata: \n\n"},
		{"leading space kept", Event{Data: " a"}, "data:  a\n\n"},
		{"colon in data", Event{Data: "k: v"}, "data: k: v\n\n"},
		{"unicode id", Event{ID: "é-1", Data: "ü"}, "id: é-1\ndata: ü\n\n"},
		{"sub-ms retry", Event{Retry: time.Microsecond, Data: "r"}, "retry: 0\ndata: r\n\n"},
	} {
		if got := string(appendEvent(nil, &tc.e)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := string(appendComment(nil, "one\r\ntwo")); got != ": one\n: two\n\n" {
		t.Errorf("comment: %q", got)
	}
}

// sseApp is an App whose /sse handler opens a stream with cfg and runs fn.
func sseApp(cfg SSEConfig, fn func(c *Ctx, s *SSEStream) error) *App {
	app := New()
	app.Logger = quietLogger()
	app.Config = testConfig()
	app.Get("/sse", func(c *Ctx) error {
		s, err := c.SSE(cfg)
		if err != nil {
			return err
		}
		return fn(c, s)
	})
	return app
}

// sseClient reads a stream line by line.
type sseClient struct {
	resp *http.Response
	br   *bufio.Reader
}

func openSSE(t *testing.T, url string, header http.Header) *sseClient {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "GET", url, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := newClient(t, false).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &sseClient{resp: resp, br: bufio.NewReader(resp.Body)}
}

// next returns the next block (up to and including its blank line), or
// fails after d.
func (c *sseClient) next(t *testing.T, d time.Duration) string {
	t.Helper()
	type res struct {
		s   string
		err error
	}
	ch := make(chan res, 1)
	go func() {
		var b strings.Builder
		for {
			line, err := c.br.ReadString('\n')
			b.WriteString(line)
			if err != nil || line == "\n" {
				ch <- res{b.String(), err}
				return
			}
		}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return r.s + "<" + r.err.Error() + ">"
		}
		return r.s
	case <-time.After(d):
		t.Fatalf("no event within %s", d)
		return ""
	}
}

func TestSSEHeadersAndEvents(t *testing.T) {
	t.Parallel()
	sent := make(chan error, 8)
	proceed := make(chan struct{})
	app := sseApp(SSEConfig{Heartbeat: Off}, func(c *Ctx, s *SSEStream) error {
		sent <- s.Send(Event{ID: s.LastEventID(), Event: "first", Data: "a\nb"})
		<-proceed
		sent <- s.Send(Event{ID: "x\ny"})
		sent <- s.Send(Event{Event: "x\ry"})
		sent <- s.Send(Event{ID: "x\x00y"})
		sent <- s.Comment("note")
		sent <- s.Send(Event{ID: "8", Data: "second"})
		if _, err := c.SSE(SSEConfig{}); !errors.Is(err, ErrResponseStarted) {
			t.Errorf("a second SSE: %v, want ErrResponseStarted", err)
		}
		return nil
	})
	s := serveApp(t, app, listenLocal(t))
	cl := openSSE(t, s.url+"/sse", http.Header{"Last-Event-Id": {"41"}})
	h := cl.resp.Header
	if cl.resp.StatusCode != 200 || h.Get("Content-Type") != "text/event-stream" || h.Get("Cache-Control") != "no-cache" || h.Get("X-Accel-Buffering") != "no" {
		t.Errorf("response %d %v", cl.resp.StatusCode, h)
	}
	// The first event arrives while the handler still waits: flushed.
	if got := cl.next(t, soon); got != "id: 41\nevent: first\ndata: a\ndata: b\n\n" {
		t.Errorf("first event %q", got)
	}
	close(proceed)
	for i, want := range []error{nil, ErrSSEInvalidEvent, ErrSSEInvalidEvent, ErrSSEInvalidEvent, nil, nil} {
		if err := recv(t, sent, "a Send"); err != want {
			t.Errorf("send %d: %v, want %v", i, err, want)
		}
	}
	if got := cl.next(t, soon); got != ": note\n\n" {
		t.Errorf("comment %q", got)
	}
	if got := cl.next(t, soon); got != "id: 8\ndata: second\n\n" {
		t.Errorf("second event %q", got)
	}

	// The query parameter, for clients that cannot set the header.
	app2 := sseApp(SSEConfig{}, func(c *Ctx, s *SSEStream) error {
		return s.Send(Event{Data: s.LastEventID()})
	})
	srv := httptest.NewServer(app2)
	defer srv.Close()
	cl2 := openSSE(t, srv.URL+"/sse?lastEventId=12", nil)
	if got := cl2.next(t, soon); got != "data: 12\n\n" {
		t.Errorf("lastEventId from the query: %q", got)
	}
}

func TestSSEHeartbeat(t *testing.T) {
	t.Parallel()
	app := sseApp(SSEConfig{Heartbeat: 50 * time.Millisecond}, func(c *Ctx, s *SSEStream) error {
		<-s.Done()
		return nil
	})
	s := serveApp(t, app, listenLocal(t))
	cl := openSSE(t, s.url+"/sse", nil)
	for range 3 {
		if got := cl.next(t, soon); got != ":\n\n" {
			t.Fatalf("heartbeat %q", got)
		}
	}
}

// A client that leaves ends the handler's context and Done, and Send then
// fails.
func TestSSEClientGone(t *testing.T) {
	t.Parallel()
	result := make(chan error, 1)
	opened := make(chan struct{})
	app := sseApp(SSEConfig{Heartbeat: Off}, func(c *Ctx, s *SSEStream) error {
		close(opened)
		select {
		case <-c.Context().Done():
		case <-time.After(forever):
			result <- errors.New("the context did not end")
			return nil
		}
		<-s.Done()
		result <- s.Send(Event{Data: "late"})
		return nil
	})
	s := serveApp(t, app, listenLocal(t))
	conn := dialRaw(t, s.addr)
	writeRaw(t, conn, "GET /sse HTTP/1.1\r\nHost: x\r\n\r\n")
	recv(t, opened, "the stream opened")
	conn.Close()
	if err := recv(t, result, "the handler seeing the client gone"); !errors.Is(err, ErrSSEClosed) {
		t.Errorf("Send after the client left: %v, want ErrSSEClosed", err)
	}
}

// A client that does not read: Send fails within WriteTimeout instead of
// blocking, and the stream ends.
func TestSSESlowClient(t *testing.T) {
	t.Parallel()
	result := make(chan error, 1)
	app := sseApp(SSEConfig{Heartbeat: Off, WriteTimeout: 200 * time.Millisecond}, func(c *Ctx, s *SSEStream) error {
		big := Event{Data: strings.Repeat("x", 64<<10)}
		for {
			if err := s.Send(big); err != nil {
				result <- err
				break
			}
		}
		select {
		case <-s.Done():
		case <-time.After(soon):
			t.Error("Done not closed after a failed write")
		}
		return nil
	})
	s := serveApp(t, app, listenLocal(t))
	conn := dialRaw(t, s.addr)
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096)
	}
	writeRaw(t, conn, "GET /sse HTTP/1.1\r\nHost: x\r\n\r\n")
	err := recv(t, result, "a Send failing on a client that does not read")
	if err == nil || errors.Is(err, ErrSSEClosed) {
		t.Errorf("Send: %v, want the write's timeout", err)
	}
	conn.Close()
}

// Under a 200 ms handler timeout, a stream lives past it.
func TestSSEHandlerTimeoutLifted(t *testing.T) {
	t.Parallel()
	app := sseApp(SSEConfig{Heartbeat: Off}, func(c *Ctx, s *SSEStream) error {
		for i := range 6 {
			select {
			case <-s.Done():
				return nil
			case <-time.After(100 * time.Millisecond):
			}
			if err := s.Send(Event{Data: string(rune('0' + i))}); err != nil {
				return err
			}
		}
		return nil
	})
	app.HandlerTimeout = 200 * time.Millisecond
	s := serveApp(t, app, listenLocal(t))
	cl := openSSE(t, s.url+"/sse", nil)
	for i := range 6 {
		if got, want := cl.next(t, soon), "data: "+string(rune('0'+i))+"\n\n"; got != want {
			t.Fatalf("event %d at %d ms: %q, want %q", i, (i+1)*100, got, want)
		}
	}
}

// The drain sends every stream its final event and ends it; Serve returns
// within the grace period, and a handler blocked on the context it had
// before SSE returns too.
func TestSSEDrain(t *testing.T) {
	t.Parallel()
	const n = 3
	var returned atomic.Int32
	app := New()
	app.Config = testConfig()
	app.Config.ShutdownTimeout = 3 * time.Second
	app.Get("/sse", func(c *Ctx) error {
		ctx := c.Context() // before SSE
		s, err := c.SSE(SSEConfig{Heartbeat: Off})
		if err != nil {
			return err
		}
		_ = s.Send(Event{Data: "hello"})
		<-ctx.Done()
		<-s.Done()
		returned.Add(1)
		return nil
	})
	app.Get("/custom", func(c *Ctx) error {
		s, err := c.SSE(SSEConfig{Shutdown: Event{Event: "bye", Data: "later", Retry: 5 * time.Second}})
		if err != nil {
			return err
		}
		_ = s.Send(Event{Data: "hello"})
		<-s.Done()
		if !errors.Is(context.Cause(c.Context()), errSSEDrained) {
			t.Errorf("the context after the drain ended with %v", context.Cause(c.Context()))
		}
		returned.Add(1)
		return nil
	})
	s := serveApp(t, app, listenLocal(t))
	var cls []*sseClient
	for range n {
		cl := openSSE(t, s.url+"/sse", nil)
		if got := cl.next(t, soon); got != "data: hello\n\n" {
			t.Fatalf("first event %q", got)
		}
		cls = append(cls, cl)
	}
	custom := openSSE(t, s.url+"/custom", nil)
	custom.next(t, soon)
	start := time.Now()
	s.cancel()
	for _, cl := range cls {
		if got := cl.next(t, soon); got != "event: shutdown\ndata: \n\n" {
			t.Errorf("final event %q", got)
		}
		if got := cl.next(t, soon); got != "<EOF>" {
			t.Errorf("after the final event: %q, want the end of the stream", got)
		}
	}
	if got := custom.next(t, soon); got != "event: bye\nretry: 5000\ndata: later\n\n" {
		t.Errorf("custom final event %q", got)
	}
	if err := s.wait(t, soon); err != nil {
		t.Errorf("Serve: %v", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("Serve returned after %s, over the grace period", took)
	}
	if returned.Load() != n+1 {
		t.Errorf("%d handlers returned, want %d", returned.Load(), n+1)
	}
}

// A stream opened while the App drains gets the final event at once.
func TestSSEOpenedWhileDraining(t *testing.T) {
	app := sseApp(SSEConfig{}, func(c *Ctx, s *SSEStream) error {
		<-s.Done()
		return s.Send(Event{Data: "late"})
	})
	app.Build()
	app.sse.shutdown()
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest("GET", "/sse", nil))
	if rec.Body.String() != "event: shutdown\ndata: \n\n" {
		t.Errorf("body %q", rec.Body)
	}
}

// After the handler returns, the stream is closed: the heartbeat stops and
// the registry forgets it.
func TestSSEEndsWithHandler(t *testing.T) {
	var kept *SSEStream
	app := sseApp(SSEConfig{Heartbeat: time.Millisecond}, func(c *Ctx, s *SSEStream) error {
		kept = s
		return s.Send(Event{Data: "one"})
	})
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest("GET", "/sse", nil))
	body := rec.Body.String()
	time.Sleep(20 * time.Millisecond)
	if rec.Body.String() != body || body != "data: one\n\n" {
		t.Errorf("body %q, then %q: written after the handler returned", body, rec.Body)
	}
	if err := kept.Send(Event{}); !errors.Is(err, ErrSSEClosed) {
		t.Errorf("Send after the handler returned: %v", err)
	}
	app.sse.mu.Lock()
	defer app.sse.mu.Unlock()
	if len(app.sse.streams) != 0 {
		t.Errorf("%d streams still registered", len(app.sse.streams))
	}
}

// Over HTTP/2 (h2c here) a stream is flushed per event the same way.
func TestSSEOverHTTP2(t *testing.T) {
	t.Parallel()
	proceed := make(chan struct{})
	app := sseApp(SSEConfig{Heartbeat: Off}, func(c *Ctx, s *SSEStream) error {
		if err := s.Send(Event{Data: "first"}); err != nil {
			return err
		}
		select {
		case <-proceed:
		case <-s.Done():
		}
		return nil
	})
	app.Config.H2C = true
	s := serveApp(t, app, listenLocal(t))
	defer close(proceed)
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(t.Context(), soon)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.url+"/sse", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Fatalf("served over %s, want HTTP/2", resp.Proto)
	}
	cl := &sseClient{resp: resp, br: bufio.NewReader(resp.Body)}
	if got := cl.next(t, soon); got != "data: first\n\n" {
		t.Errorf("first event over HTTP/2: %q", got)
	}
}

// A handler that panics after opening a stream: the recovery layer ends the
// stream (no heartbeat after the panic) and aborts the connection.
func TestSSEPanicEndsStream(t *testing.T) {
	kept := make(chan *SSEStream, 1)
	app := sseApp(SSEConfig{Heartbeat: time.Millisecond}, func(c *Ctx, s *SSEStream) error {
		kept <- s
		panic("boom")
	})
	func() {
		defer func() {
			if p := recover(); p != http.ErrAbortHandler {
				t.Errorf("panic %v, want http.ErrAbortHandler", p)
			}
		}()
		app.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/sse", nil))
	}()
	s := <-kept
	if err := s.Comment("after"); !errors.Is(err, ErrSSEClosed) {
		t.Errorf("Comment after the panic: %v, want ErrSSEClosed", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		t.Error("the stream was not ended by the recovery layer")
	}
}
